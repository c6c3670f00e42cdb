import { describe, expect, it } from "vitest"
import { type SnapshotFrom, initialTransition } from "xstate"
import { MAX_SURVIVORS, isOverSurvivorCap } from "../../../machines/job/job.gates"
import { type JobBirthFacts, type JobInput, jobMachine } from "../../../machines/job/job.machine"
import { explainJobBirthRefusal } from "../../../machines/job/job.refusals"
import { jobInput } from "./job.fixtures"

// The job machine's birth gate: a survive job is refused at birth while the host's live survive jobs are at the cap;
// its refusal names the cap and the way past it (forge_jobs kill).

type Snapshot = SnapshotFrom<typeof jobMachine>

const born = (birth: JobBirthFacts, overrides: Partial<JobInput> = {}): Snapshot => initialTransition(jobMachine, { ...jobInput, ...overrides, birth })[0]
const atCap: JobBirthFacts = { liveSurvivors: MAX_SURVIVORS, maxSurvivors: MAX_SURVIVORS }

describe("the survivor cap", () => {
  it("refuses one survive job more than the cap allows, and never a job that dies with its host", () => {
    expect(isOverSurvivorCap({ survive: true, liveSurvivors: MAX_SURVIVORS - 1, maxSurvivors: MAX_SURVIVORS })).toBe(false)
    expect(isOverSurvivorCap({ survive: true, liveSurvivors: MAX_SURVIVORS, maxSurvivors: MAX_SURVIVORS })).toBe(true)
    expect(isOverSurvivorCap({ survive: true, liveSurvivors: 3, maxSurvivors: 2 })).toBe(true)
    expect(isOverSurvivorCap({ survive: true, liveSurvivors: 0, maxSurvivors: 0 })).toBe(true)
    expect(isOverSurvivorCap({ survive: false, liveSurvivors: MAX_SURVIVORS, maxSurvivors: MAX_SURVIVORS })).toBe(false)
  })

  it("the machine decides at birth: refused (final, no tag) at the cap, else starting with the facts kept", () => {
    const refused = born(atCap, { survive: true })
    expect(refused.value).toBe("refused")
    expect(refused.status).toBe("done")
    expect([...refused.tags]).toEqual([])
    const below = born({ liveSurvivors: MAX_SURVIVORS - 1, maxSurvivors: MAX_SURVIVORS }, { survive: true })
    expect(below.value).toBe("starting")
    expect(below.context.birth).toEqual({ liveSurvivors: MAX_SURVIVORS - 1, maxSurvivors: MAX_SURVIVORS })
    expect(born(atCap, { survive: false }).value).toBe("starting")
  })

  it("a snapshot without birth facts (a record older than the gate) is past its birth: the gate never refuses it", () => {
    const [old] = initialTransition(jobMachine, { ...jobInput, survive: true, birth: null } as unknown as JobInput)
    expect(old.value).toBe("starting")
  })

  it("the refusal names the survivors running, the cap and the way past it", () => {
    expect(explainJobBirthRefusal(born(atCap, { survive: true }))).toBe(
      `forge_shell: ${MAX_SURVIVORS} survive jobs are already running (survivor cap: ${MAX_SURVIVORS}); stop some (forge_jobs kill) before starting another that outlives the host.`,
    )
    expect(explainJobBirthRefusal(born({ liveSurvivors: 0, maxSurvivors: 0 }, { survive: true }))).toBe(
      "forge_shell: 0 survive jobs are already running (survivor cap: 0); stop some (forge_jobs kill) before starting another that outlives the host.",
    )
  })
})
