// The watchdog's intervention ledger: what it warned about, killed, would have killed, could not resolve, and which
// settings fell back. Bounded: only the newest WATCHDOG_LEDGER_LIMIT entries are kept, the oldest rotate out.
import { z } from "zod"
import type { WatchdogLedger } from "./watchdog.ports"

export const WATCHDOG_LEDGER_LIMIT = 200

export const WATCHDOG_LEDGER_KINDS = ["warn", "kill", "dry-run", "degraded", "unresolved", "config-fallback"] as const
export type WatchdogLedgerKind = (typeof WATCHDOG_LEDGER_KINDS)[number]

export const watchdogLedgerEntrySchema = z.strictObject({
  /** Epoch ms. */
  at: z.int().nonnegative(),
  kind: z.enum(WATCHDOG_LEDGER_KINDS),
  /** The shell call the entry is about; null for a config fallback. */
  callId: z.string().min(1).nullable(),
  sessionId: z.string().min(1).nullable(),
  command: z.string().nullable(),
  /** The processes acted on (kill), listed (dry-run, degraded) or left alive (unresolved). */
  pids: z.array(z.int().positive()),
  /** One human sentence: what happened and why. */
  message: z.string().min(1),
})

export type WatchdogLedgerEntry = z.output<typeof watchdogLedgerEntrySchema>

/** Validates an entry before it is stored, naming the offending field. */
export function parseLedgerEntry(value: unknown, where: string): WatchdogLedgerEntry {
  const parsed = watchdogLedgerEntrySchema.safeParse(value)
  if (!parsed.success) throw new Error(`invalid watchdog ledger entry (${where}):\n${z.prettifyError(parsed.error)}`)
  return parsed.data
}

/** A ledger held in memory: for harnesses without storage, and the reference behaviour of the bound. */
export class MemoryWatchdogLedger implements WatchdogLedger {
  private readonly entries: WatchdogLedgerEntry[] = []

  constructor(private readonly limit = WATCHDOG_LEDGER_LIMIT) {}

  async append(entry: WatchdogLedgerEntry): Promise<void> {
    this.entries.push(parseLedgerEntry(entry, "append"))
    if (this.entries.length > this.limit) this.entries.splice(0, this.entries.length - this.limit)
  }

  async list(): Promise<WatchdogLedgerEntry[]> {
    return this.entries.map((entry) => ({ ...entry, pids: [...entry.pids] }))
  }
}
