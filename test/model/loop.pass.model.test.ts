import { describe, expect, it } from "vitest"
import type { SnapshotFrom } from "xstate"
import { TestModel } from "xstate/graph"
import { type LoopEvent, loopMachine, loopPassOf, loopPhaseOf } from "../../machines/loop/loop.machine"
import { loopPassMachine } from "../../machines/loop/loop.pass.machine"
import type { LoopPassEvent, LoopPassInput } from "../../machines/loop/loop.types"
import { initialStep, step } from "../../services/lifecycle/lifecycle.step"
import { CODED, MAX_PASSES, UNVERIFIED, inputFor, restored } from "./loop.fixtures"
import { startLoopSut } from "./loop.sut"
import { MODEL_DRIVER, STRANGER, passSession } from "./loop.world"
import type { ModelStep } from "../../testing"

// Paths generated from the pass machine alone (a loop's first coding pass: opened, briefed, reminded, handed off,
// failed, stalled, taken over by a restart) drive the real LoopService, through the loop's own SUT (loop.sut.ts: SQLite,
// the one LifecycleHost, opencode's sessions at the edge). At every step the loop the service holds agrees with the
// loop model stepped by the same event (loop.agreement.ts), and the pass inside it is where the pass model is; when the
// pass ends, the loop has left the phase the way the pass's end says. The loop model test walks passes through every
// phase; this one walks the pass's own graph, so each of its paths is one the pass can take by itself.
//
// loop.adjust is left out: only an auditing pass is handed it (the loop's coding phase refuses it before its pass), and
// a pass is born coding here; the loop model test explores it in the auditing phase.

type PassSnapshot = SnapshotFrom<typeof loopPassMachine>
type LoopSnapshot = SnapshotFrom<typeof loopMachine>

const LOOP_INPUT = inputFor({ maxIterations: MAX_PASSES })
const PASS_INPUT: LoopPassInput = { phase: "coding", iteration: 1, maxIterations: MAX_PASSES }
const SESSION = passSession(1)

/** What the world can do to a pass in each state: the loop's first coding pass, its session `ses_pass_1`. */
function eventsIn(state: PassSnapshot): LoopPassEvent[] {
  if (state.hasTag("opening")) {
    return [
      { type: "loop.session.opened", session: SESSION, driver: MODEL_DRIVER },
      { type: "loop.session.failed", error: "session.create failed: 503" },
      restored as LoopPassEvent,
    ]
  }
  if (state.hasTag("working")) {
    const events: LoopPassEvent[] = [
      { type: "loop.handoff", session: SESSION, handoff: CODED },
      // A malformed record: the handoff gate refuses it, and nothing is held.
      { type: "loop.handoff", session: SESSION, handoff: UNVERIFIED },
      { type: "loop.idle", session: SESSION },
    ]
    if (state.context.pending === null) events.push(restored as LoopPassEvent)
    return events
  }
  return []
}

/** Where the loop must be once its pass ended as `end`. */
const AFTER_END: Record<string, (loop: LoopSnapshot) => boolean> = {
  handedOff: (loop) => loopPhaseOf(loop.value) === "auditing",
  failed: (loop) => loop.status === "done" && loop.matches("errored"),
  stalled: (loop) => loop.status === "done" && loop.matches("stalled"),
}

/** Every event sequence: the shortest path to each state, and each of those extended by every event its end state takes. */
function sequences(): LoopPassEvent[][] {
  const shortest = new TestModel(loopPassMachine, { input: PASS_INPUT, events: eventsIn })
    .getShortestPaths({ allowDuplicatePaths: true })
    .map((p) => p.steps.map((s) => s.event as LoopPassEvent).filter((e) => (e.type as string) !== "xstate.init"))
  const all = new Map<string, LoopPassEvent[]>()
  const add = (events: LoopPassEvent[]) => all.set(JSON.stringify(events), events)
  for (const events of shortest) {
    add(events)
    const end = passAfter(events)
    if (end.status === "active") for (const next of eventsIn(end)) add([...events, next])
  }
  return [...all.values()]
}

/** The pass model after `events`. */
function passAfter(events: readonly LoopPassEvent[]): PassSnapshot {
  let pass = initialStep(loopPassMachine, PASS_INPUT).snapshot as PassSnapshot
  for (const event of events) pass = step(loopPassMachine, pass, event).snapshot as PassSnapshot
  return pass
}

const paths = sequences()

describe("loop pass machine", () => {
  it("reaches every state of the pass but the budget's end, which a first pass never meets", () => {
    const reached = new Set(paths.map((events) => JSON.stringify(passAfter(events).value)))
    for (const state of ["opening", "working", "handedOff", "failed", "stalled"]) expect(reached).toContain(JSON.stringify(state))
  })

  for (const events of paths) {
    const name = events.map((e) => (e.type === "loop.handoff" && e.handoff === UNVERIFIED ? "loop.handoff (malformed)" : e.type)).join(" → ") || "(start)"
    it(`drives the real service: ${name}`, async () => {
      const sut = await startLoopSut(LOOP_INPUT)
      try {
        let before = initialStep(loopMachine, LOOP_INPUT).snapshot as LoopSnapshot
        for (const [i, event] of events.entries()) {
          const pass = passAfter(events.slice(0, i + 1))
          const loopEvent: LoopEvent = event
          const { snapshot, requested, refused } = step(loopMachine, before, loopEvent)
          const after = snapshot as LoopSnapshot
          const accepted = before.can(loopEvent) && !refused
          await sut.apply({ event: loopEvent, before, after, accepted, actions: requested as ModelStep<typeof loopMachine>["actions"] })
          await sut.agreesWith(after)
          const held = sut.current()
          if (pass.status === "done") {
            const ended = AFTER_END[String(pass.value)]
            expect(ended?.(after), `the loop after its pass ended ${String(pass.value)}: ${JSON.stringify(after.value)}`).toBe(true)
            expect(held?.value, "the service's loop").toEqual(after.value)
          } else {
            expect(held && loopPassOf(held)?.value, `the service's pass after ${event.type}`).toBe(pass.value)
            expect(held && loopPassOf(held)?.context.pending, "the handoff it holds").toEqual(pass.context.pending)
          }
          before = after
        }
      } finally {
        await sut.stop()
      }
    })
  }

  it("leaves a stranger's session to the loop's own gate: the pass never sees it", () => {
    const working = step(loopMachine, initialStep(loopMachine, LOOP_INPUT).snapshot, {
      type: "loop.session.opened",
      session: SESSION,
      driver: MODEL_DRIVER,
    }).snapshot as LoopSnapshot
    expect(working.can({ type: "loop.idle", session: STRANGER })).toBe(false)
    expect(working.can({ type: "loop.idle", session: SESSION })).toBe(true)
  })
})
