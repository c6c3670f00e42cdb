// A crew's birth: the record written once, pending or born armed under a goal, the birth gate's refusals (which write
// nothing), and the record status each state reads as.
import { describe, expect, it } from "vitest"
import { initialTransition } from "xstate"
import { crewMachine } from "../../../machines/crew/crew.machine"
import { explainCrewBirthRefusal } from "../../../machines/crew/crew.refusals"
import { crewStatusOf } from "../../../machines/crew/crew.status"
import { FREE, input } from "./crew.machine.helpers"

const OTHER = ".opencode/crew/2026-11-29-the-first-crew.md"

describe("registration", () => {
  it("writes the record once, then pends when not born armed", () => {
    const [snapshot, actions] = initialTransition(crewMachine, input(false))
    expect(snapshot.value).toEqual({ pending: "standby" })
    expect(actions.filter((a) => a.type === "writeRecord").map((a) => a.params)).toEqual([{ change: "created" }])
    const { record: _record, ...fields } = input(false)
    expect(snapshot.context).toStrictEqual({
      ...fields,
      pendingReport: null,
      pendingReason: null,
      report: null,
      reason: null,
      pendingDocument: null,
      dialog: 0,
    })
    expect("record" in snapshot.context, "the record text is never kept in the context").toBe(false)
  })

  it("is born armed under a goal: straight to executing, the record written once", () => {
    const [snapshot, actions] = initialTransition(crewMachine, input(true))
    expect(snapshot.value).toEqual({ executing: "working" })
    expect(actions.filter((a) => a.type === "writeRecord").map((a) => a.params)).toEqual([{ change: "created" }])
    expect(crewStatusOf(snapshot.value)).toBe("executing")
  })

  it("pends under a goal too when no execution was asked in the registering call", () => {
    const [snapshot] = initialTransition(crewMachine, input(false, { execution: null, governed: true }))
    expect(snapshot.value).toEqual({ pending: "standby" })
  })

  it.each([
    [
      "execution waves without a goal",
      input(false, { execution: "waves", governed: false }),
      "crew_begin: registration and execution in one call is legal only under an active goal of this session. Register without execution, show the user the record path and the choices, and end your turn: the user picks waves, goal, or standby.",
    ],
    [
      "execution goal without a goal",
      input(false, { execution: "goal", governed: false }),
      "crew_begin: registration and execution in one call is legal only under an active goal of this session. Register without execution, show the user the record path and the choices, and end your turn: the user picks waves, goal, or standby.",
    ],
    [
      "execution goal under a goal",
      input(false, { execution: "goal", governed: true }),
      'crew_begin: the session\'s active goal governs it already, so execution "goal" is refused. Register with execution "waves" (born armed).',
    ],
    [
      "no objective and a repeated title (even born armed)",
      { ...input(true), objective: "  ", subtasks: [...input().subtasks, { title: "survey prior  art", agent: null, files: [] }] },
      'crew_begin: the crew needs an objective; subtask 3 repeats the title "survey prior  art" (titles must be unique).',
    ],
    ["no subtask", { ...input(), subtasks: [] }, "crew_begin: the crew declares no subtask: give each piece of work one titled subtask."],
    [
      "two subtasks owning one file, and an empty path",
      { ...input(), subtasks: [...input().subtasks, { title: "Write the lexer", agent: null, files: ["./src//parser.ts", "src/lexer.ts", " "] }] },
      "crew_begin: subtask 3 and subtask 1 both own src/parser.ts (a file has one owner: workers of one wave would write over each other); subtask 3 owns a file with an empty path.",
    ],
    [
      "a second live crew of the session (even born armed)",
      input(true, undefined, { ...FREE, liveCrew: { crewPath: OTHER, status: "executing" } }),
      `crew_begin: this session already has a live crew: ${OTHER} (executing). Arm it (crew_begin with execution only), close it (crew_close with verdicts), or abandon it (crew_close with abandon: true) before registering another.`,
    ],
    [
      "a crew with no worker to dispatch, naming forge.json's findings",
      input(false, undefined, { liveCrew: null, workers: { dispatchable: 0, findings: ["forge.json: agents.coder.model: expected a string"] } }),
      expect.stringMatching(
        /^A crew needs forge-\* workers, and none are configured\.[\s\S]*\nforge\.json findings:\n- forge\.json: agents\.coder\.model: expected a string\n/,
      ),
    ],
  ])("the birth gate refuses %s: it ends in refused with no record written", (_, born, message) => {
    const [snapshot, actions] = initialTransition(crewMachine, born)
    expect(snapshot.value).toBe("refused")
    expect(snapshot.status).toBe("done")
    expect(actions.filter((a) => a.type === "writeRecord")).toEqual([])
    expect(explainCrewBirthRefusal(snapshot)).toEqual(message)
  })

  it("decides on the facts it was born with, which the context keeps; the plan's own problems are named first", () => {
    const crowded = input(false, undefined, { liveCrew: { crewPath: OTHER, status: "pending" }, workers: { dispatchable: 0, findings: [] } })
    const [born] = initialTransition(crewMachine, input(false))
    expect(born.context.birth).toStrictEqual(FREE)
    const [refused] = initialTransition(crewMachine, { ...crowded, subtasks: [] })
    expect(explainCrewBirthRefusal(refused)).toMatch(/^crew_begin: the crew declares no subtask/)
    const [second] = initialTransition(crewMachine, crowded)
    expect(explainCrewBirthRefusal(second), "the live crew before the roster").toMatch(/already has a live crew: .* \(pending\)/)
  })

  it("maps every state to its record status (registering reads as pending)", () => {
    expect(crewStatusOf("registering")).toBe("pending")
    expect(crewStatusOf({ pending: "arming" })).toBe("pending")
    expect(crewStatusOf({ executing: "closing" })).toBe("executing")
    expect(crewStatusOf("closed")).toBe("closed")
    expect(crewStatusOf("abandoned")).toBe("abandoned")
    expect(crewStatusOf("converted")).toBe("converted")
  })
})
