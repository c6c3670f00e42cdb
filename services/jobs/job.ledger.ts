import { createStore } from "@xstate/store"
import { type StateStorage, flushStorage, persist, rehydrateStore } from "@xstate/store/persist"
import { z } from "zod"

// The job ledger: what happened to jobs that nobody was waiting on — adopted from a previous run, left as orphans,
// killed because their session was deleted, or not fully killable. Bounded: only the newest entries stay. It is an
// @xstate/store (plain keyed data, no finite modes), persisted through whatever StateStorage the host provides.

export const JOB_LEDGER_LIMIT = 200
export const JOB_LEDGER_KINDS = ["adopted", "orphaned", "session-deleted", "kill-survivors"] as const

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

const STORAGE_NAME = "forge.job-ledger"

function bounded(entries: readonly JobLedgerEntry[]): JobLedgerEntry[] {
  return entries.slice(-JOB_LEDGER_LIMIT)
}

export function createJobLedgerStore(storage?: StateStorage) {
  const store = createStore({
    context: { entries: [] as JobLedgerEntry[] },
    on: {
      append: (context, event: { entry: JobLedgerEntry }) => ({ entries: bounded([...context.entries, event.entry]) }),
    },
  })
  if (storage === undefined) return store
  return store.with(
    persist({
      name: STORAGE_NAME,
      storage,
      // The database opens after the host starts: hydration is explicit, and what was appended meanwhile is kept.
      skipHydration: true,
      merge: (persisted, current) => ({ entries: bounded([...(persisted.entries ?? []), ...current.entries]) }),
    }),
  )
}

export class JobLedger {
  private readonly store: ReturnType<typeof createJobLedgerStore>

  constructor(storage?: StateStorage) {
    this.store = createJobLedgerStore(storage)
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

  /** Loads what earlier hosts recorded (once the storage is reachable). */
  hydrate(): Promise<void> {
    return rehydrateStore(this.store)
  }

  /** Waits for pending writes. */
  async flush(): Promise<void> {
    await flushStorage(this.store)
  }
}
