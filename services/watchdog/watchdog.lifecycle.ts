import { type WatchdogMachine, watchdogMachine } from "../../machines/watchdog/watchdog.machine"
import { explainWatchdogRefusal } from "../../machines/watchdog/watchdog.refusals"
import type { Lifecycle } from "../lifecycle/lifecycle"
import type { LifecycleHost } from "../lifecycle/lifecycle.host"
import { type WatchdogImplementationDeps, createWatchdogImplementations } from "./watchdog.implementations"

/**
 * The watchdog lifecycle on the one host: its machine and its effects (locate, kill, ledger). Memory only: a watch
 * belongs to one builtin shell call of this very process, so after a restart there is no call left to watch and no
 * process the old watch could still rightly kill; what users need to keep (warnings, kills, give-ups) is in the
 * ledger, not in the actor records.
 */
export function defineWatchdogLifecycle(host: LifecycleHost, deps: WatchdogImplementationDeps): Lifecycle<WatchdogMachine> {
  return host.define({
    machine: watchdogMachine,
    implementations: createWatchdogImplementations(deps),
    // The service only sends (a refused event changes nothing); the words are for logs and a harness that dispatches.
    explain: explainWatchdogRefusal,
    metaOf: (snapshot) => ({ sessionId: snapshot.context.sessionId, document: null }),
    persist: false,
  })
}
