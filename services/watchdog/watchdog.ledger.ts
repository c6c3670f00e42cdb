// The watchdog's intervention ledger: what it warned about, killed, would have killed, could not resolve, and which
// settings fell back. Bounded: only the newest WATCHDOG_LEDGER_LIMIT entries are kept, the oldest rotate out.
// One named ledger ("watchdog") on the kernel's ledger store, like the job ledger.
import * as z from "zod"
import { Ledger, type LedgerDefinition } from "../lifecycle/ledger"
import { MemoryLedgerStore } from "../lifecycle/ledger.memory"
import type { LedgerStore } from "../lifecycle/ledger.ports"

const WATCHDOG_LEDGER_NAME = "watchdog"
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

export const watchdogLedgerDefinition: LedgerDefinition<WatchdogLedgerEntry> = {
  name: WATCHDOG_LEDGER_NAME,
  title: "watchdog ledger",
  schema: watchdogLedgerEntrySchema,
  keep: WATCHDOG_LEDGER_LIMIT,
  indexOf: (entry) => ({ kind: entry.kind, sessionId: entry.sessionId, subject: entry.callId, at: entry.at }),
}

/**
 * The WatchdogLedger port on a ledger store. A damaged row is left out of `list()` and told to `report`, so one bad
 * row never hides the rest.
 */
export function watchdogLedgerOn(store: LedgerStore, report: (problem: string) => void = () => {}, keep = WATCHDOG_LEDGER_LIMIT): WatchdogLedger {
  const ledger = new Ledger(store, { ...watchdogLedgerDefinition, keep })
  return {
    append: (entry) => ledger.append(entry),
    async list() {
      const { entries, problems } = await ledger.query()
      for (const problem of problems) report(problem)
      return entries
    },
  }
}

/** The bounded intervention ledger: an append keeps only the newest WATCHDOG_LEDGER_LIMIT entries. (A port, declared beside its entry; watchdog.ports re-exports it.) */
export interface WatchdogLedger {
  append(entry: WatchdogLedgerEntry): Promise<void>
  /** Every kept entry, oldest first. */
  list(): Promise<WatchdogLedgerEntry[]>
}

/** A ledger held in memory: for harnesses without storage. */
export class MemoryWatchdogLedger implements WatchdogLedger {
  private readonly ledger: WatchdogLedger

  constructor(limit = WATCHDOG_LEDGER_LIMIT) {
    this.ledger = watchdogLedgerOn(new MemoryLedgerStore(), () => {}, limit)
  }

  append(entry: WatchdogLedgerEntry): Promise<void> {
    return this.ledger.append(entry)
  }

  list(): Promise<WatchdogLedgerEntry[]> {
    return this.ledger.list()
  }
}
