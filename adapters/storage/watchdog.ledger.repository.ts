// The watchdog's named ledger on the SQLite ledger store (ledger.repository.ts): opened on a connection of its own
// (to read it from outside a host), or on a host's shared connection.
import type { WatchdogLedgerEntry } from "../../services/watchdog/watchdog.ledger"
import { watchdogLedgerOn } from "../../services/watchdog/watchdog.ledger"
import type { WatchdogLedger } from "../../services/watchdog/watchdog.ports"
import { type OpenLedgerStoreOptions, openLedgerStore, sharedLedgerStore } from "./ledger.repository"
import type { StorageConnection } from "./storage.connection"

/** A watchdog ledger with its own connection to a database file. */
export interface WatchdogLedgerStore extends WatchdogLedger {
  readonly file: string
  close(): Promise<void>
}

export interface OpenWatchdogLedgerOptions extends OpenLedgerStoreOptions {
  /** Hears each damaged row `list()` leaves out. */
  report?: (problem: string) => void
}

/** Opens the watchdog ledger of a workspace (`<workspace>/.opencode/forge/forge.db`) or of an explicit file. */
export async function openWatchdogLedger(target: string | { file: string }, options: OpenWatchdogLedgerOptions = {}): Promise<WatchdogLedgerStore> {
  const store = await openLedgerStore(target, options)
  const ledger = watchdogLedgerOn(store, options.report)
  return {
    file: store.file,
    append: (entry: WatchdogLedgerEntry) => ledger.append(entry),
    list: () => ledger.list(),
    close: () => store.close(),
  }
}

/** The watchdog ledger on the runtime's shared connection, reached on first use; closing it only stops writes. */
export function sharedWatchdogLedger(
  connection: () => Promise<StorageConnection>,
  report?: (problem: string) => void,
): WatchdogLedger & { close(): Promise<void> } {
  const store = sharedLedgerStore(connection)
  return { ...watchdogLedgerOn(store, report), close: () => store.close() }
}
