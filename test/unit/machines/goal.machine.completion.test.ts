// The goal machine's completion gate: every check passed for this revision and one attestation with evidence per
// criterion, then the user's dialog decides.
import { describe, expect, it } from "vitest"
import type { Attestation } from "../../../machines/goal/goal.gates"
import type { GoalEvent } from "../../../machines/goal/goal.machine"
import { explainGoalRefusal } from "../../../machines/goal/goal.refusals"
import { MINUTE, T0, allow, reject } from "./goal.fixtures"
import {
  active,
  allPass,
  attestations,
  complete,
  completing,
  debouncing,
  effectsOf,
  expectRefused,
  from,
  parked,
  pause,
  revise,
  start,
} from "./goal.machine.helpers"

type Complete = Extract<GoalEvent, { type: "goal.complete" }>
/** A completion whose call's line showed `shown`. */
const shownTo = (shown: Complete["shown"], fields: Parameters<typeof complete>[0] = {}): GoalEvent => ({ ...(complete(fields) as Complete), shown })

describe("completion gate", () => {
  it("opens the dialog only when the call's line showed the user a passing run of every check of this revision", () => {
    const working = active()
    const passed = { revision: 1, results: allPass(2) }
    expect(working.can(shownTo({ tool: "goal_complete", run: passed }))).toBe(true)
    // A harness that draws no line shows the run in the dialog's words.
    expect(working.can(complete())).toBe(true)
    expectRefused(working, shownTo({ tool: "goal_complete", run: null }))
    expectRefused(
      working,
      shownTo({
        tool: "goal_complete",
        run: {
          revision: 1,
          results: [
            { item: 1, pass: true },
            { item: 2, pass: false },
          ],
        },
      }),
    )
    expectRefused(working, shownTo({ tool: "attempt_completion", run: { ...passed, revision: 0 } }))
    expect(explainGoalRefusal(working, shownTo({ tool: "attempt_completion", run: null }))).toMatch(
      /^completion gate: the user has not seen a passing run of every check of revision 1: .*this call's line had no run to show\. This call's own run passed: call attempt_completion again/,
    )
    // A failing gate of its own is named first: another call would not help.
    expect(explainGoalRefusal(working, shownTo({ tool: "goal_complete", run: null }, { attestations: [] }))).toMatch(
      /^completion gate: goal .* is not complete — criteria without an attestation/,
    )
  })

  it("accepts every check passed for this revision and one attestation per criterion, then waits on the dialog", () => {
    const working = active()
    expect(effectsOf(working, complete())).toEqual([])
    const confirming = from(working, complete())
    expect(confirming.value).toEqual({ active: "completing" })
    expect(effectsOf(confirming, allow(2, T0 + MINUTE))).toEqual(["writeDocument:completed"])
    const done = from(confirming, allow(2, T0 + MINUTE))
    expect(done.value).toBe("completed")
    expect(done.status).toBe("done")
    expect(from(confirming, reject(2)).value).toEqual({ active: "working" })
  })

  it("accepts from the debounce (clearing the deadline) and from parked", () => {
    const fromDebounce = from(debouncing(), complete())
    expect(fromDebounce.value).toEqual({ active: "completing" })
    expect(fromDebounce.context.dueAt).toBeNull()
    expect(from(parked(), complete()).value).toEqual({ active: "completing" })
  })

  it("refuses a run for another revision", () => {
    const working = active()
    expectRefused(working, complete({ revision: 2 }))
    const revised = from(working, revise())
    expect(revised.context.revision).toBe(2)
    expectRefused(revised, complete({ revision: 1, results: allPass(3), attestations: [...attestations, { criterion: "Docs updated", evidence: "README" }] }))
    expect(
      revised.can(complete({ revision: 2, results: allPass(3), attestations: [...attestations, { criterion: "Docs updated", evidence: "README" }] })),
    ).toBe(true)
  })

  it("refuses a failed or missing check", () => {
    const working = active()
    expectRefused(
      working,
      complete({
        results: [
          { item: 1, pass: true },
          { item: 2, pass: false },
        ],
      }),
    )
    expectRefused(working, complete({ results: [{ item: 1, pass: true }] }))
    expectRefused(
      working,
      complete({
        results: [
          { item: 1, pass: true },
          { item: 3, pass: true },
        ],
      }),
    )
  })

  it("refuses a criterion without an attestation with evidence, one attested twice, and a stranger", () => {
    const working = active()
    const [login, green] = attestations as [Attestation, Attestation]
    for (const given of [
      [login],
      [login, { ...green, evidence: "  " }],
      [login, green, { ...login, evidence: "again" }],
      [login, green, { criterion: "Fast", evidence: "x" }],
    ]) {
      expectRefused(working, complete({ attestations: given }))
    }
  })

  it("only an active goal completes, and only once it is asked", () => {
    expectRefused(start(), complete())
    expectRefused(from(active(), pause("user")), complete())
    expectRefused(completing(), complete())
  })
})
