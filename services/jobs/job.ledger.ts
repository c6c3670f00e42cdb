import { createStore } from "@xstate/store"
import { type StateStorage, flushStorage, persist } from "@xstate/store/persist"
import { z } from "zod"
import type { JobHost } from "../../machines/job.machine"
import { type StoreStorage, type StoreTarget, hostScopedName, ownItem, persistOptions, takeOverDeadHosts } from "./job.stores"

// The job ledger: what happened to jobs that nobody was waiting on — adopted from a previous run, left as orphans,
// killed because their session was deleted, or not fully killable — and how the host contains its jobs. Bounded: only the newest entries stay. It is an
// @xstate/store (plain keyed data, no finite modes) persisted per host; a start takes over the ledgers of hosts
// that died, so the history carries on from one run to the next.

export const JOB_LEDGER_NAME = "forge.job-ledger"
export const JOB_LEDGER_LIMIT = 200
export const JOB_LEDGER_KINDS = ["adopted", "orphaned", "session-deleted", "kill-survivors", "containment"] as const

export const jobLedgerEntrySchema = z.strictObject({
  /** Epoch ms. */
  at: z.int().nonnegative(),
  kind: z.enum(JOB_LEDGER_KINDS),
  jobId: z.string().min(1),
  sessionId: z.string().min(1).nullable(),
  command: z.string(),
  /** One sentence: what happened and why. */
  message: z.string().min(1),
})

export type JobLedgerEntry = z.output<typeof jobLedgerEntrySchema>

const ledgerContextSchema = z.strictObject({ entries: z.array(jobLedgerEntrySchema) })

/** In time order, the newest `JOB_LEDGER_LIMIT` only. */
function bounded(entries: readonly JobLedgerEntry[]): JobLedgerEntry[] {
  return [...entries].sort((a, b) => a.at - b.at).slice(-JOB_LEDGER_LIMIT)
}

function createLedgerStore(options: Omit<StoreTarget, "storage"> & { storage?: StateStorage }) {
  const store = createStore({
    context: { entries: [] as JobLedgerEntry[] },
    on: {
      append: (context, event: { entry: JobLedgerEntry }) => ({ entries: bounded([...context.entries, event.entry]) }),
      tookOver: (context, event: { entries: readonly JobLedgerEntry[] }) => ({ entries: bounded([...event.entries, ...context.entries]) }),
    },
  })
  if (options.storage === undefined) return store
  return store.with(persist(persistOptions({ ...options, storage: options.storage }, ledgerContextSchema)))
}

export class JobLedger {
  private readonly store: ReturnType<typeof createLedgerStore>

  /** Without storage the ledger lives in memory only. */
  constructor(
    private readonly host: JobHost,
    private readonly storage?: StoreStorage,
    onError: (error: unknown) => void = () => {},
  ) {
    this.store = createLedgerStore({ storage: storage && ownItem(storage), hydrated: true, name: hostScopedName(JOB_LEDGER_NAME, host), onError })
  }

  /** Validates and appends one entry; the oldest beyond the bound rotate out. */
  append(entry: JobLedgerEntry): void {
    const parsed = jobLedgerEntrySchema.safeParse(entry)
    if (!parsed.success) throw new Error(`invalid job ledger entry:\n${z.prettifyError(parsed.error)}`)
    this.store.trigger.append({ entry: parsed.data })
  }

  entries(): JobLedgerEntry[] {
    return [...this.store.getSnapshot().context.entries]
  }

  /**
   * Start-up: the ledgers of hosts that are gone join this host's (in time order, bounded) and their items are
   * removed; the ledgers of hosts still running stay theirs. A ledger that does not parse is reported and left.
   */
  async takeOver(isAlive: (host: JobHost) => boolean): Promise<string[]> {
    const storage = this.storage
    if (storage === undefined) return []
    return takeOverDeadHosts({
      storage,
      base: JOB_LEDGER_NAME,
      self: this.host,
      isAlive,
      open: (name, onError) => createLedgerStore({ storage, name, onError }),
      adopt: (context) => this.store.trigger.tookOver({ entries: context.entries }),
    })
  }

  /** Waits for pending writes. */
  async flush(): Promise<void> {
    if (this.storage !== undefined) await flushStorage(this.store)
  }
}
