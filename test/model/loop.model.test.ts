import { describe, expect, it } from "vitest"
import type { SnapshotFrom } from "xstate"
import { TestModel } from "xstate/graph"
import { type LoopEvent, loopMachine, loopPassOf } from "../../machines/loop/loop.machine"
import { initialStep, step } from "../../services/lifecycle/lifecycle.step"
import { MODEL_DRIVER, passSession } from "./loop.world"
import { MAX_PASSES, inputFor, restored } from "./loop.fixtures"
import { startLoopSut } from "./loop.sut"
import { type ModelStep, describeModel, hostLogicOf, loopModel, modelStateKey } from "../../testing"

// Paths generated from the loop machine drive the real LoopService on the workspace's one LifecycleHost (SQLite in a
// temp workspace); at every step service, database row, transition log and opencode's side (sessions opened, briefs
// sent, sessions stopped, the host told) must agree with the model (loop.agreement.ts). Fakes only at the edges
// (loop.fakes.ts): the clock, the session's live plan (an approved plan with two phases), opencode's sessions, whose
// openings the SUT settles, and git's worktrees, recorded (GitLoopWorktrees is tested against real git on its own).
//
// The world is the package's (testing/events/loop.events.ts): a loop born from the approved plan, budget and restart
// walks, loops restarted from their records, and starts the birth gate refuses (nothing of them is recorded or made).
//
// How each event reaches the service:
// - loop.session.opened / loop.session.failed: the SUT resolves (with `ses_pass_<n>`) or rejects the opening the loop
//   waits for; the service's report applies it. In a finished loop they are a late answer to an opening the loop no
//   longer waits for (cancelled meanwhile) or, with nothing pending, a stray report (`service.report`).
// - loop.handoff: loop_handoff (`service.handoff` with the tool's fields) from the current pass, from an earlier pass
//   (the gate refuses), from a session of no loop (refused before the machine: not a pass); wrong-role and malformed
//   records are refused by the gate, each with explainLoopRefusal's words.
// - loop.idle: `service.sessionIdle`. The idle of a session that is not the current pass never reaches the machine:
//   the service drops it first, as the machine would refuse it.
// - loop.adjust: loop_adjust (`service.adjust`) from the current pass, the clock set to the event's time.
// - loop.cancel: loop_cancel (`service.cancel(caller, undefined, reason)`) from the user's session, and from a pass of
//   the loop (refused); a finished loop: unnamed and named, both refused.
// - loop.fail has three roads: in `opening`, the pass's session opens and its first brief cannot be sent
//   (BRIEF_FAILED); in `working` without a handoff and with a reminder left, the turn ends and the reminder cannot be
//   sent (NUDGE_FAILED); elsewhere the service has no road to it, and it is dispatched to the lifecycle (DIRECT_FAIL).
// - loop.restored is a real restart: the process closes (what it was opening is never answered to it), a new one
//   composes the workspace on the same folder and database, defines the loop lifecycle again, runs restoreLive
//   (lifecycle.restore of each running record) and `service.resumeAll()`, which takes the loop over (the machine's
//   driver gate: the recorded driver is gone). The sessions still run their turns. With NEIGHBOUR_DRIVER, a second
//   process starts beside the live driver and does the same: the gate leaves the loop to the live one.
// - loop.restart: loop_status {restart} (`service.restart`) from the process that drives the loop: without force on
//   each phase's first visit (refused: it runs), forced in the restart walk (testing/events/loop.walks.ts). A loop that ended is
//   restarted from its record: each "restarted from its record" config seeds the row, findings and worktree the
//   process that ran it left, then restarts it without force (loop.sut.resume.ts); two of them the birth gate refuses.
// - tool.use is never sent: the loop's gate on its passes' tools (the audit's write-ban, the coder's worktree, the tools
//   no pass uses: plan authoring, loop management, questions to the user) asks
//   `can()` (`service.toolRefusal` for the current pass); the SUT replays it as that question, and coverage counts it
//   like a sent event.

type Snapshot = SnapshotFrom<typeof loopMachine>

const world = loopModel()

describe("loop machine", () => {
  it("reaches every state of the machine from the configs", () => {
    const reached = new Set<string>()
    for (const { input } of world.configs) {
      // The loop as the host steps it: each phase with its pass.
      const model = new TestModel(hostLogicOf(loopMachine), {
        input,
        serializeState: modelStateKey,
        events: (state: Snapshot) => (state.status === "active" ? world.events(state) : []),
      })
      const paths = model.getShortestPaths({ limit: 20_000, allowDuplicatePaths: true })
      for (const p of paths) reached.add(JSON.stringify([p.state.value, loopPassOf(p.state)?.value ?? null]))
    }
    for (const phase of ["coding", "auditing", "final_auditing", "final_audit_fix"]) {
      for (const pass of ["opening", "working"]) expect(reached).toContain(JSON.stringify([{ running: phase }, pass]))
    }
    for (const end of ["completed", "cancelled", "errored", "stalled", "refused"]) expect(reached).toContain(JSON.stringify([end, null]))
  })
})

describeModel({ ...world, start: startLoopSut })

// maxIterations is "passes (sessions opened) the loop may spend before it ends as errored", and the brief tells each
// pass "pass N of at most M". A restart while a pass's session is being opened opens it again on the same pass: it
// neither spends a pass nor ends the loop (it once spent one without asking the budget, so a process that kept
// restarting while a session opened spent passes without end).
describe("the loop's pass budget across restarts", () => {
  it("a restart while a pass's session is being opened never takes the loop past maxIterations", async () => {
    const input = inputFor({ maxIterations: MAX_PASSES })
    const sut = await startLoopSut(input)
    try {
      let before = initialStep(loopMachine, input).snapshot as Snapshot
      for (const event of [restored, restored, { type: "loop.session.opened", session: passSession(1), driver: MODEL_DRIVER }] satisfies LoopEvent[]) {
        const { snapshot, requested, refused } = step(loopMachine, before, event)
        const after = snapshot as Snapshot
        await sut.apply({ event, before, after, accepted: before.can(event) && !refused, actions: requested as ModelStep<typeof loopMachine>["actions"] })
        await sut.agreesWith(after)
        before = after
      }
      const loop = sut.current()
      expect(loop?.value).toEqual({ running: "coding" })
      expect(loop && loopPassOf(loop)?.value).toBe("working")
      // Two restarts while the first pass's session opened: still the first pass.
      expect(loop?.context.iteration, "passes spent").toBe(1)
      expect(sut.briefs().at(-1)?.text.split("\n")[0]).toContain(`pass 1 of at most ${MAX_PASSES}`)
    } finally {
      await sut.stop()
    }
  })
})

// A loop's driver is one process at a time (the machine's driver gate). When it exits while another opencode process
// on the workspace runs on, that process takes the loop over at its next look (src/loop/loop.lazy.ts looks every 30 s): the
// first pass's session, still being opened when the driver went, is opened again, once.
describe("a loop whose driver exits while another process runs on", () => {
  it("is left to its live driver, then taken over once by the process still running", async () => {
    const sut = await startLoopSut(inputFor({}))
    try {
      const seen = await sut.exitDriverBesideNeighbour()
      expect(seen).toEqual([
        { step: "started beside the driver", driver: "model-process-1", openings: 1 },
        { step: "looked while the driver runs", driver: "model-process-1", openings: 1 },
        { step: "the driver exited", driver: "model-process-1", openings: 1 },
        { step: "looked after the driver exited", driver: "model-process-neighbour", openings: 2 },
        { step: "looked once more", driver: "model-process-neighbour", openings: 2 },
      ])
      const current = sut.current()
      expect(current?.value, "the same phase").toEqual({ running: "coding" })
      expect(current && loopPassOf(current)?.value, "the same pass, its session opened again").toBe("opening")
      expect(sut.current()?.context.iteration, "no pass spent on the takeover").toBe(1)
    } finally {
      await sut.stop()
    }
  })
})
