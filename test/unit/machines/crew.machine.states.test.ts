// The crew machine's states as a whole: each one reachable, its tags, the finished states that refuse everything, and
// which status changes written into the record the user must confirm.
import { describe, expect, it } from "vitest"
import { isUserGatedCrewDocumentStatus } from "../../../machines/crew/crew.gates"
import {
  CREW,
  abandon,
  allow,
  arm,
  arming,
  close,
  closing,
  convert,
  everyEvent,
  executing,
  executingAbandoning,
  pending,
  pendingAbandoning,
  refusal,
  run,
} from "./crew.machine.helpers"

describe("every state is reachable", () => {
  it.each([
    ["pending.standby", pending, { pending: "standby" }],
    ["pending.arming", arming, { pending: "arming" }],
    ["pending.abandoning", pendingAbandoning, { pending: "abandoning" }],
    ["executing.working", executing, { executing: "working" }],
    ["executing.closing", closing, { executing: "closing" }],
    ["executing.abandoning", executingAbandoning, { executing: "abandoning" }],
    ["closed", () => run([arm(true), close(true)]), "closed"],
    ["abandoned", () => run([abandon(true)]), "abandoned"],
    ["converted", () => run([convert(false)]), "converted"],
  ] as const)("%s", (_, reach, value) => {
    expect(reach().value).toEqual(value)
  })
})

describe("tags", () => {
  it.each([
    ["pending.standby", pending, ["dispatch-belt", "live"]],
    ["pending.arming", arming, ["awaiting-user", "dispatch-belt", "live"]],
    ["pending.abandoning", pendingAbandoning, ["awaiting-user", "dispatch-belt", "live"]],
    ["executing.working", executing, ["live"]],
    ["executing.closing", closing, ["awaiting-user", "live"]],
    ["executing.abandoning", executingAbandoning, ["awaiting-user", "live"]],
    ["closed", () => run([arm(true), close(true)]), []],
    ["abandoned", () => run([abandon(true)]), []],
    ["converted", () => run([convert(false)]), []],
  ] as const)("%s", (_, reach, tags) => {
    expect([...reach().tags].sort()).toEqual(tags)
  })

  it("final states are done", () => {
    for (const snapshot of [run([arm(true), close(true)]), run([abandon(true)]), run([convert(false)])]) expect(snapshot.status).toBe("done")
  })
})

describe("a finished crew refuses everything", () => {
  it.each([
    ["closed", () => run([arm(true), close(true)])],
    ["abandoned", () => run([arm(false), allow(1), abandon(false), allow(2)])],
    ["converted", () => run([convert(false)])],
  ] as const)("%s", (status, reach) => {
    const done = reach()
    for (const event of everyEvent) {
      expect(refusal(done, event)).toBe(`crew ${CREW} is ${status}: a finished crew accepts no further changes. Register a new one with crew_begin.`)
    }
  })
})

describe("record direction (issue 23 §1b)", () => {
  it("only the close and the arm are user-gated", () => {
    const all = ["pending", "executing", "closed", "abandoned", "converted"] as const
    const gated = all.flatMap((from) => all.filter((to) => isUserGatedCrewDocumentStatus(from, to)).map((to) => `${from}->${to}`))
    expect(gated.sort()).toEqual(["abandoned->closed", "converted->closed", "executing->closed", "pending->closed", "pending->executing"].sort())
  })
})
