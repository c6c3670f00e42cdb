import { LOOP_MACHINE_VERSION } from "../../machines/loop/loop.machine"
import { loopPassMachine } from "../../machines/loop/loop.pass.machine"
import { DEFAULT_LOOP_SANDBOX } from "../../machines/loop/loop.sandbox"
import type { PersistedChild, PersistedShape } from "../lifecycle/lifecycle.definition"
import { loopPassContextSchema } from "./loop.context"

// Loop records written by an older loop machine, brought up to this one at restore (lifecycle.restore.ts calls it for
// every record). Version 1 ran each phase's pass inline: `{ running: { <phase>: "opening" | "working" } }`, with the
// session's handoff and reminders in the loop's context. Version 2 invokes the pass machine: the phase is the loop's
// state, and the pass (its state, handoff, reminders) is the invoked child `pass`, built here from what version 1 kept.
// Version 3 records the loop's sandbox (an older loop gets the default: on, offline, never an unconfined one) and
// its review findings (none were recorded before). Version 4 records the loop's phase (a running loop's is its state;
// a finished one resumes in the final audit once every section is done, else in coding), its restarts (none) and the
// role of each session it opens (not known for the ones before).

/** The fields of a version 1 context that are the pass's own in version 2. */
interface V1PassFields {
  iteration?: unknown
  maxIterations?: unknown
  pending?: unknown
  nudges?: unknown
}

export function upgradeLoopRecord(persisted: PersistedShape, fromVersion: string): PersistedShape {
  if (fromVersion === LOOP_MACHINE_VERSION) return persisted
  if (fromVersion === "3") return withPhase(persisted)
  if (fromVersion === "2") return withPhase(withSandbox(persisted))
  if (fromVersion !== "1") throw new Error(`no upgrade from loop machine version ${fromVersion}`)
  return withPhase(withSandbox(passOfVersion1(persisted)))
}

function withPhase(persisted: PersistedShape): PersistedShape {
  if (typeof persisted.context !== "object" || persisted.context === null || "phase" in persisted.context) return persisted
  const running = typeof persisted.value === "object" ? persisted.value.running : undefined
  const sections = (persisted.context as { sections?: unknown }).sections
  const allDone = Array.isArray(sections) && sections.every((s) => (s as { status?: unknown } | null)?.status === "done")
  const phase = typeof running === "string" ? running : allDone ? "final_auditing" : "coding"
  return { ...persisted, context: { ...persisted.context, phase, restarts: [], roles: {} } }
}

function withSandbox(persisted: PersistedShape): PersistedShape {
  if (typeof persisted.context !== "object" || persisted.context === null || "sandbox" in persisted.context) return persisted
  // Findings were a handoff's only: a dirty audit's still reach the next coder through `last`; none is recorded.
  const context = { ...persisted.context, sandbox: DEFAULT_LOOP_SANDBOX, findings: [], auditBefore: [], recurring: {} }
  return { ...persisted, context, children: withErrorCount(persisted.children) }
}

/** A pass of version 2 counted no errors: it starts at none. */
function withErrorCount(children: PersistedShape["children"]): PersistedShape["children"] {
  const pass = children?.pass
  const snapshot = pass?.snapshot as { context?: Record<string, unknown> } | undefined
  if (pass === undefined || snapshot?.context === undefined || "errors" in snapshot.context) return children
  return { ...children, pass: { ...pass, snapshot: { ...snapshot, context: { ...snapshot.context, errors: 0 } } as PersistedChild["snapshot"] } }
}

function passOfVersion1(persisted: PersistedShape): PersistedShape {
  if (typeof persisted.context !== "object" || persisted.context === null) return persisted
  const { pending, nudges, ...loop } = persisted.context as Record<string, unknown> & V1PassFields
  const running = typeof persisted.value === "object" ? persisted.value.running : undefined
  // A finished loop ran no pass: only its context changes shape.
  if (typeof running !== "object" || running === null) return { value: persisted.value, context: loop, children: {} }
  const [phase, step] = Object.entries(running)[0] ?? []
  if (phase === undefined || (step !== "opening" && step !== "working"))
    throw new Error(`a version 1 loop in ${JSON.stringify(running)} has no pass to carry over`)
  const fields = persisted.context as V1PassFields
  const passContext = loopPassContextSchema.parse({ phase, iteration: fields.iteration, maxIterations: fields.maxIterations, pending, nudges, errors: 0 })
  // Resolved by the pass machine itself, so the child is exactly what version 2 persists.
  const pass = loopPassMachine.resolveState({ value: step, context: passContext })
  const child: PersistedChild = { snapshot: loopPassMachine.getPersistedSnapshot(pass) as PersistedChild["snapshot"], src: "pass", syncSnapshot: false }
  return { value: { running: phase }, context: loop, children: { pass: child } }
}
