import { isDeepStrictEqual } from "node:util"
import { describe, expect, it } from "vitest"
import type { SnapshotFrom } from "xstate"
import { createTestModel } from "xstate/graph"
import { type PlanEvent, planMachine } from "../../machines/plan/plan.machine"
import { describeModel, planModel } from "../../testing"
import { SESSION, startPlanSut } from "./plan.sut"

// Paths generated from the plan machine itself drive the real service (runtime, plan document, SQLite), checking at
// every step that service, document and database agree with the model. The world's events are the package's
// (testing/events/plan.events.ts). `tool.use` is only ever asked, never sent: the service's gate asks `can()`, so the
// SUT replays it as that question and coverage counts it like a sent event.

const world = planModel({ session: SESSION })
const [config] = world.configs
if (config === undefined) throw new Error("the plan's model world has its config")
const { input } = config
const eventsIn = (state: SnapshotFrom<typeof planMachine>) => world.events(state)

describe("plan machine", () => {
  it("reaches every state of the machine", () => {
    // Only the events the world produces (xstate/graph would add a bare one for each event type a state handles).
    const filterEvents = (state: SnapshotFrom<typeof planMachine>, event: PlanEvent) => eventsIn(state).some((e) => isDeepStrictEqual(e, event))
    const paths = createTestModel(planMachine, { input, events: eventsIn, filterEvents }).getShortestPaths({ limit: 5000, allowDuplicatePaths: true })
    const reached = new Set(paths.map((p) => JSON.stringify(p.state.value)))
    for (const value of [
      { draft: "editing" },
      { draft: "confirming" },
      { draft: "discarding" },
      { approved: "working" },
      { approved: "confirming" },
      "done",
      "abandoned",
      "superseded",
    ]) {
      expect(reached).toContain(JSON.stringify(value))
    }
  })
})

describeModel({ ...world, start: startPlanSut })
