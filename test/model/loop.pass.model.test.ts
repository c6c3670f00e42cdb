import { describe, expect, it } from "vitest"
import type { SnapshotFrom } from "xstate"
import { type LoopEvent, loopMachine, loopPassOf, loopPhaseOf } from "../../machines/loop/loop.machine"
import { loopPassMachine } from "../../machines/loop/loop.pass.machine"
import type { LoopPassEvent } from "../../machines/loop/loop.types"
import { initialStep, step } from "../../services/lifecycle/lifecycle.step"
import { MAX_PASSES, UNVERIFIED, inputFor } from "./loop.fixtures"
import { startLoopSut } from "./loop.sut"
import { MODEL_DRIVER, STRANGER, passSession } from "./loop.world"
import { type ModelStep, loopPassModel, modelReplays } from "../../testing"

// Paths generated from the pass machine alone (a loop's first coding pass: opened, briefed, reminded, handed off,
// failed, erroring, silent, stalled, taken over by a restart) drive the real LoopService, through the loop's own SUT (loop.sut.ts: SQLite,
// the one LifecycleHost, opencode's sessions at the edge). At every step the loop the service holds agrees with the
// loop model stepped by the same event (loop.agreement.ts), and the pass inside it is where the pass model is; when the
// pass ends, the loop has left the phase the way the pass's end says. The loop model test walks passes through every
// phase; this one walks the pass's own graph, so each of its paths is one the pass can take by itself.
//
// The pass's model world (testing/events/loop.pass.events.ts) also holds an auditing pass and one its budget has no
// room for; only its first config, the loop's first coding pass, is a pass the loop's SUT starts with, and this test
// walks that one. The loop model test explores an auditing pass's adjust and findings inside the loop.

type PassSnapshot = SnapshotFrom<typeof loopPassMachine>
type LoopSnapshot = SnapshotFrom<typeof loopMachine>

const LOOP_INPUT = inputFor({ maxIterations: MAX_PASSES })
const SESSION = passSession(1)
// The loop's first coding pass: the pass a loop born from LOOP_INPUT runs first (its budget is the loop's).
const world = loopPassModel()
const [first] = world.configs
if (first === undefined || first.input.phase !== "coding" || first.input.iteration !== 1 || first.input.maxIterations !== MAX_PASSES)
  throw new Error("the pass's model world starts with the loop's first coding pass")
const PASS_INPUT = first.input

/** Where the loop must be once its pass ended as `end`. */
const AFTER_END: Record<string, (loop: LoopSnapshot) => boolean> = {
  handedOff: (loop) => loopPhaseOf(loop.value) === "auditing",
  failed: (loop) => loop.status === "done" && loop.matches("errored"),
  stalled: (loop) => loop.status === "done" && loop.matches("stalled"),
  errored: (loop) => loop.status === "done" && loop.matches("errored"),
  silent: (loop) => loop.status === "done" && loop.matches("stalled"),
}

/** The pass model after `events`. */
function passAfter(events: readonly LoopPassEvent[]): PassSnapshot {
  let pass = initialStep(loopPassMachine, PASS_INPUT).snapshot as PassSnapshot
  for (const event of events) pass = step(loopPassMachine, pass, event).snapshot as PassSnapshot
  return pass
}

const paths = modelReplays(world, PASS_INPUT).map(({ events }) => events)

describe("loop pass machine", () => {
  it("reaches every state of the pass but the budget's end, which a first pass never meets", () => {
    const reached = new Set(paths.map((events) => JSON.stringify(passAfter(events).value)))
    for (const state of ["opening", "working", "handedOff", "failed", "stalled", "errored", "silent"]) expect(reached).toContain(JSON.stringify(state))
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
