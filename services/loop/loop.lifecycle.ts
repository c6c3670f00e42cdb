import type { SnapshotFrom } from "xstate"
import { type LoopMachine, loopMachine } from "../../machines/loop/loop.machine"
import { explainLoopBirthRefusal, explainLoopRefusal } from "../../machines/loop/loop.refusals"
import type { Lifecycle } from "../lifecycle/lifecycle"
import type { LifecycleHost } from "../lifecycle/lifecycle.host"
import { loopContextProblem, loopPassContextProblem } from "./loop.context"
import { type LoopImplementationDeps, createLoopImplementations } from "./loop.implementations"
import { upgradeLoopRecord } from "./loop.upgrade"

export type LoopSnapshot = SnapshotFrom<LoopMachine>

/** The loop lifecycle on the one host: its machine, its effects, its refusals, its records. */
export function defineLoopLifecycle(host: LifecycleHost, deps: LoopImplementationDeps): Lifecycle<LoopMachine> {
  return host.define({
    machine: loopMachine,
    implementations: createLoopImplementations(deps),
    explain: explainLoopRefusal,
    birthRefusal: (snapshot) => (snapshot.matches("refused") ? explainLoopBirthRefusal(snapshot) : null),
    metaOf: (snapshot) => ({ sessionId: snapshot.context.hostSession, document: snapshot.context.planPath }),
    contextProblem: loopContextProblem,
    childContextProblem: loopPassContextProblem,
    upgrade: upgradeLoopRecord,
    // Any opencode process on the workspace may read, cancel or hand off to a loop: each step is decided on the
    // latest committed record.
    shared: true,
    retention: { keep: 50, every: 10 },
  })
}
