import * as z from "zod"
import { Ledger, type LedgerDefinition } from "../lifecycle/ledger"
import { MemoryLedgerStore } from "../lifecycle/ledger.memory"
import type { LedgerStore } from "../lifecycle/ledger.ports"

// The job ledger: what happened to jobs that nobody was waiting on — adopted from a previous run, left as orphans,
// killed because their session was deleted, or not fully killable — and how the host contains its jobs. One named
// ledger on the workspace's ledger store: every host appends rows to it, nothing is overwritten, so no host has to
// take over another's history; only the newest entries stay.

const JOB_LEDGER_NAME = "job"
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

export const jobLedgerDefinition: LedgerDefinition<JobLedgerEntry> = {
  name: JOB_LEDGER_NAME,
  title: "job ledger",
  schema: jobLedgerEntrySchema,
  keep: JOB_LEDGER_LIMIT,
  indexOf: (entry) => ({ kind: entry.kind, sessionId: entry.sessionId, subject: entry.jobId, at: entry.at }),
}

export class JobLedger {
  private readonly ledger: Ledger<JobLedgerEntry>
  private pending: Promise<void> = Promise.resolve()

  /**
   * Without a store the ledger lives in memory only. `report` hears what could not be written or read (the
   * supervisor's appends never wait for the database, so a failed write is reported, not thrown).
   */
  constructor(
    store: LedgerStore = new MemoryLedgerStore(),
    private readonly report: (problem: string) => void = () => {},
  ) {
    this.ledger = new Ledger(store, jobLedgerDefinition)
  }

  /** Validates (a bad entry throws, naming the field) and appends one entry; the oldest beyond the bound rotate out. */
  append(entry: JobLedgerEntry): void {
    const valid = this.ledger.parse(entry, "append")
    this.pending = this.pending
      .then(() => this.ledger.append(valid))
      .catch((error: unknown) => this.report(`an entry was not recorded: ${error instanceof Error ? error.message : String(error)}`))
  }

  /** Every kept entry of every host, oldest first (after this ledger's pending writes); damaged rows are reported. */
  async entries(): Promise<JobLedgerEntry[]> {
    await this.flush()
    const { entries, problems } = await this.ledger.query()
    for (const problem of problems) this.report(problem)
    return entries
  }

  /** Waits for pending writes. */
  async flush(): Promise<void> {
    await this.pending
  }
}
