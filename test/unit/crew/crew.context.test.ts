import { describe, expect, it } from "vitest"
import { CREW_MACHINE_VERSION } from "../../../machines/crew/crew.machine"
import { crewContextProblem, upgradeCrewRecord } from "../../../services/crew/crew.context"

// Version 1 crew records said only `bornArmed`; version 2 keeps the registration the birth gate decided on. A live
// crew restored from a version 1 row must come back fit for the machine, with what its registration was. Fields added
// since within a version (held record changes, birth facts, the dialog count) are filled for older rows.

const v1Context = (bornArmed: boolean) => ({
  crewPath: ".opencode/crew/2026-11-30-ship.md",
  sessionId: "ses_1",
  objective: "Ship",
  subtasks: [{ title: "Write it", agent: null }],
  lineage: null,
  bornArmed,
  createdAt: 1,
  pendingReport: null,
  pendingReason: null,
  report: null,
  reason: null,
})

/** Today's subtasks: each owns its files (none here). */
const OWNING = [{ title: "Write it", agent: null, files: [] }]

describe("upgradeCrewRecord", () => {
  it.each([
    [true, { execution: "waves", governed: true }],
    [false, { execution: null, governed: false }],
  ])("reads a version 1 record born armed=%s as its registration, fit for the machine", (bornArmed, registration) => {
    const upgraded = upgradeCrewRecord({ value: { executing: "working" }, context: v1Context(bornArmed) }, "1")
    expect(upgraded.value).toEqual({ executing: "working" })
    expect(upgraded.context).toMatchObject({ registration })
    expect(upgraded.context).not.toHaveProperty("bornArmed")
    expect(crewContextProblem(upgraded.context)).toBeNull()
  })

  it("passes a record of this version through untouched", () => {
    const persisted = { value: "closed", context: { registration: { execution: null, governed: false }, pendingDocument: null, birth: null, dialog: 3 } }
    expect(upgradeCrewRecord(persisted, CREW_MACHINE_VERSION)).toBe(persisted)
  })

  it("gives a record of this version written before record changes were held nothing pending (issue 23 §1b)", () => {
    const persisted = { value: { executing: "working" }, context: { registration: { execution: null, governed: false } } }
    expect(upgradeCrewRecord(persisted, CREW_MACHINE_VERSION)).toEqual({
      value: persisted.value,
      context: { ...persisted.context, pendingDocument: null, birth: null, dialog: 0 },
    })
    expect(upgradeCrewRecord({ value: "closed", context: [] }, CREW_MACHINE_VERSION).context).toEqual([])
  })

  it("gives a record of this version written before the birth facts were kept none (it is past its birth), and the machine takes it", () => {
    const today = { ...v1Context(false), subtasks: OWNING, bornArmed: undefined, registration: { execution: null, governed: false }, pendingDocument: null }
    const { bornArmed: _gone, ...written } = today
    expect(crewContextProblem(written), "unfit without the upgrade").toMatch(/birth/)
    const upgraded = upgradeCrewRecord({ value: { pending: "standby" }, context: written }, CREW_MACHINE_VERSION)
    expect(upgraded.context).toEqual({ ...written, birth: null, dialog: 0 })
    expect(crewContextProblem(upgraded.context)).toBeNull()
    const { birth: _kept, dialog: _opened, ...unchanged } = upgraded.context as { birth: unknown; dialog: unknown }
    expect(unchanged, "nothing else changes").toEqual(written)
  })

  it("gives a record of today's shape written before dialogs were numbered none opened, and the machine takes it", () => {
    const { bornArmed: _gone, ...written } = {
      ...v1Context(false),
      subtasks: OWNING,
      registration: { execution: null, governed: false },
      pendingDocument: null,
      birth: { liveCrew: null, workers: { dispatchable: 1, findings: [] } },
      pendingReason: "wrong split",
    }
    expect(crewContextProblem(written), "unfit without the upgrade").toMatch(/dialog/)
    const upgraded = upgradeCrewRecord({ value: { pending: "abandoning" }, context: written }, CREW_MACHINE_VERSION)
    expect(upgraded).toEqual({ value: { pending: "abandoning" }, context: { ...written, dialog: 0 } })
    expect(crewContextProblem(upgraded.context)).toBeNull()
  })

  it("gives each subtask of a record written before subtasks owned files none, and the machine takes it", () => {
    const { bornArmed: _gone, ...written } = {
      ...v1Context(false),
      subtasks: [
        { title: "Write it", agent: "forge-coder" },
        { title: "Check it", agent: null },
      ],
      registration: { execution: "waves", governed: false },
      pendingDocument: null,
      birth: null,
      dialog: 2,
    }
    expect(crewContextProblem(written), "unfit without the upgrade").toMatch(/files/)
    const upgraded = upgradeCrewRecord({ value: { executing: "working" }, context: written }, CREW_MACHINE_VERSION)
    expect(upgraded).toEqual({
      value: { executing: "working" },
      context: {
        ...written,
        subtasks: [
          { title: "Write it", agent: "forge-coder", files: [] },
          { title: "Check it", agent: null, files: [] },
        ],
      },
    })
    expect(crewContextProblem(upgraded.context)).toBeNull()
    const owning = { ...written, subtasks: [{ title: "Write it", agent: null, files: ["src/a.ts"] }] }
    expect(upgradeCrewRecord({ value: "closed", context: owning }, CREW_MACHINE_VERSION).context, "files kept as they are").toBe(owning)
  })

  it("refuses a dialog number that is not a count", () => {
    const { bornArmed: _gone, ...fit } = {
      ...v1Context(false),
      subtasks: OWNING,
      registration: { execution: null, governed: false },
      pendingDocument: null,
      birth: null,
    }
    expect(crewContextProblem({ ...fit, dialog: 0 })).toBeNull()
    expect(crewContextProblem({ ...fit, dialog: -1 })).toMatch(/dialog/)
    expect(crewContextProblem({ ...fit, dialog: 1.5 })).toMatch(/dialog/)
  })

  it("refuses a version it does not know, and a context that is not an object", () => {
    expect(() => upgradeCrewRecord({ value: "closed", context: {} }, "7")).toThrow("no upgrade from crew machine version 7")
    expect(() => upgradeCrewRecord({ value: "closed", context: [] }, "1")).toThrow("its context is not an object")
  })

  it("finds a version 1 context unfit without the upgrade", () => {
    expect(crewContextProblem(v1Context(false))).toMatch(/registration/)
  })
})
