import { afterEach, describe, expect, it } from "vitest"
import { type SnapshotFrom, transition } from "xstate"
import { createTestModel } from "xstate/graph"
import { type PlanEvent, type PlanInput, planMachine } from "../../machines/plan.machine"
import { PlanSut, SESSION } from "./plan.sut"

// Paths generated from the plan machine itself: every transition, guard-refused events included, replayed against
// the real service, checking at every step that service, document and database agree with the model.

const input: PlanInput = {
  planPath: ".opencode/plan/2026-11-30-model-plan.md",
  sessionId: SESSION,
  tasks: [{ number: 1, ticked: false }],
  criteria: ["c1"],
  document: "",
}

const eventCases: PlanEvent[] = [
  { type: "plan.revise", tasks: [{ number: 1, ticked: false }], criteria: ["c1"], document: "" },
  { type: "plan.revise", tasks: [], criteria: [], document: "" },
  { type: "plan.approve" },
  { type: "dialog.allow" },
  { type: "dialog.reject" },
  { type: "plan.tick", task: 1 },
  { type: "plan.tick", task: 2 },
  { type: "plan.close", checks: [{ criterion: "c1", pass: true, evidence: "ran it" }] },
  { type: "plan.close", checks: [{ criterion: "c1", pass: false, evidence: "failed" }] },
  { type: "plan.discard", by: "user", reason: "wrong approach" },
  { type: "plan.discard", by: "model", reason: "the model wants out" },
  { type: "plan.supersede", by: "user", successor: ".opencode/crew/2026-12-01-next.md", reason: "crew takes over" },
  { type: "plan.supersede", by: "model", successor: ".opencode/crew/2026-12-02-model.md", reason: "the model moves on" },
  { type: "plan.supersede", by: "user", successor: " " },
  { type: "plan.bind", sessionId: SESSION },
  { type: "tool.use", tool: "bash" },
  { type: "tool.use", tool: "read" },
]

const model = createTestModel(planMachine, { input, events: eventCases })
// Shortest paths reach every state; extending each by every event case covers every transition out of every
// state — the targetless ones and the ones a guard refuses included, which shortest paths alone dedupe away.
const statePaths = model.getShortestPaths({ limit: 5000 })
const cases = statePaths.flatMap((path) => eventCases.map((event) => ({ path, event })))

describe("plan machine paths against the real service, document and database", () => {
  let sut: PlanSut | undefined
  afterEach(async () => {
    await sut?.stop()
    sut = undefined
  })

  it("reaches every state of the machine", () => {
    const reached = new Set(statePaths.map((p) => JSON.stringify(p.state.value)))
    for (const value of [{ draft: "editing" }, { draft: "confirming" }, { draft: "discarding" }, { approved: "working" }, { approved: "confirming" }, "done", "abandoned", "superseded"]) {
      expect(reached).toContain(JSON.stringify(value))
    }
  })

  for (const { path, event } of cases) {
    it(`${path.description} ⇒ ${event.type} ${JSON.stringify(event).slice(0, 80)}`, async () => {
      const current = await PlanSut.start(input.tasks, input.criteria)
      sut = current
      expect(current.planPath).toBe(input.planPath)
      let before: SnapshotFrom<typeof planMachine> | undefined
      const replay = async (step: { event: { type: string } }) => {
        const event = step.event as PlanEvent
        await current.apply(event, before?.can(event) ?? false)
      }
      await path.test({
        states: {
          "*": async (state) => {
            await current.agreesWith(state)
            before = state
          },
        },
        events: Object.fromEntries(eventCases.map((e) => [e.type, replay])),
      })
      // The extra step: the model's answer to this event from the reached state, and the SUT's.
      const [next] = transition(planMachine, path.state, event)
      await current.apply(event, path.state.can(event))
      await current.agreesWith(next)
    })
  }
})
