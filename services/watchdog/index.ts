// Public surface of the watchdog service: the runtime that drives one watchdog machine per builtin shell call.
export {
  WatchdogService,
  type ShellCallStart,
  type WatchSnapshot,
  type WatchdogServiceDeps,
} from "./watchdog.service"
export { defineWatchdogLifecycle } from "./watchdog.lifecycle"
export { createWatchdogImplementations, type WatchedCall, type WatchdogImplementationDeps } from "./watchdog.implementations"
export {
  WATCHDOG_MARK_VAR,
  type KillTarget,
  type LocateRequest,
  type LocatedProcess,
  type WatchdogKiller,
  type WatchdogLedger,
  type WatchdogLocator,
  type WatchdogTicker,
} from "./watchdog.ports"
export {
  MemoryWatchdogLedger,
  WATCHDOG_LEDGER_KINDS,
  WATCHDOG_LEDGER_LIMIT,
  watchdogLedgerDefinition,
  watchdogLedgerEntrySchema,
  watchdogLedgerOn,
  type WatchdogLedgerEntry,
  type WatchdogLedgerKind,
} from "./watchdog.ledger"
export {
  DEFAULT_TICK_MS,
  MIN_SEAM_MS,
  TEST_STALL_ENV,
  TEST_TICK_ENV,
  resolveWatchdogSettings,
  type ResolvedWatchdogSettings,
  type WatchdogSettings,
} from "./watchdog.settings"
