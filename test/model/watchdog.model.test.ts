import { describeModel, watchdogModel } from "../../testing"
import { startWatchdogSut } from "./watchdog.sut"

// Paths generated from the watchdog machine for each mode (the world: testing/events/watchdog.events.ts) drive the
// real WatchdogService (held locator and killer, in-memory ledger, a clock the test moves); service, ledger and model
// must agree at every step.

describeModel({ ...watchdogModel(), start: startWatchdogSut })
