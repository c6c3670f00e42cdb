import { describe, expect, it } from "vitest"
import { createTestModel } from "xstate/graph"
import { crewMachine } from "../../machines/crew/crew.machine"
import { SESSION, startCrewSut } from "./crew.sut"
import { crewModel, describeModel } from "../../testing"

// Paths generated from the crew machine drive the real CrewService on the workspace's one LifecycleHost (SQLite in a
// temp workspace) writing real crew records through FsCrewFiles; at every step service, record (status, execution,
// History) and database row and log must agree with the model (crew.agreement.ts). Fakes only at the edges: the
// clock, the roster (two dispatchable workers) and the goal's governance (the SUT sets it from each event's
// `governed`).
//
// The world (testing/events/crew.events.ts): two configs live, a crew registered pending and one born armed under the
// session's active goal; the others end at the birth gate, among them a second crew while the session's crew is live
// (the SUT registers that one first, through the same service, and abandons it after the refusal) and no worker to
// dispatch (the SUT's roster says none). Nothing of them is written or recorded.
//
// Reached through the service's side roads, or asked only:
// - crew.dispatch is never sent: the task belt asks `can()` (CrewService.dispatchRefusal); the SUT replays it as that
//   question, and coverage counts it like a sent event.
// - crew.restored is a real restart: the process closes (an open dialog dies unanswered), a new one composes the
//   workspace on the same folder and database, defines the crew lifecycle again and runs restoreCrews.
// - dialog.allow / dialog.reject name the dialog they answer. In a dialog state the model offers the answers to the
//   open dialog (the SUT answers the dialog the last crew call holds open) and a stale one of each to the dialog
//   before it (the SUT dispatches it through the service's lifecycle, as a user's answer arriving from a dialog that
//   another process closed meanwhile would be: refused, the open dialog untouched). Elsewhere both are refused.
// - Every dialog opened is counted in the context, so the dialog states repeat without end (reject, ask again): the
//   model opens at most MAX_DIALOGS, enough for a dialog state entered twice.

/** The session's earlier crew, registered by the SUT (crew.sut.ts EARLIER_OBJECTIVE) where a path's birth facts name it. */
const EARLIER_CREW = ".opencode/crew/2026-11-30-survey-the-field.md"

const world = crewModel({ session: SESSION, earlierCrew: EARLIER_CREW })

describe("crew machine", () => {
  it("reaches every state of the machine from the configs", () => {
    const reached = new Set<string>()
    for (const { input } of world.configs) {
      const paths = createTestModel(crewMachine, { input, events: world.events }).getShortestPaths({
        limit: 5000,
        allowDuplicatePaths: true,
      })
      for (const p of paths) reached.add(JSON.stringify(p.state.value))
    }
    for (const value of [
      { pending: "standby" },
      { pending: "arming" },
      { pending: "abandoning" },
      { executing: "working" },
      { executing: "closing" },
      { executing: "abandoning" },
      "closed",
      "abandoned",
      "converted",
      "refused",
    ]) {
      expect(reached).toContain(JSON.stringify(value))
    }
  })
})

describeModel({ ...world, start: startCrewSut })
