import { readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, it } from "vitest"
import { runCrewCommand } from "../../../services/crew/crew.command"
import { allow } from "../plan/plan.helpers"
import { COMPLETE, REGISTRATION, ROSTER, SESSION, neverAsked, useCrewHarness } from "./crew.harness"

// Issue 23 §1b for crews: a record that says closed (or executing, for a pending crew) would pass a gate the user
// holds, so the crew stays where it is, its answers and /crew name the held status, and only the close (or arm)
// dialog moves it. A record that says abandoned only tightens: the crew is abandoned at once.

describe("crew record changes that would pass a user-held gate are held", () => {
  const { goal, fresh, frontmatter, transitions, dir } = useCrewHarness()
  const roster = { roster: async () => ROSTER }
  const setStatus = (crewPath: string, status: string) => {
    const file = path.join(dir(), crewPath)
    writeFileSync(file, readFileSync(file, "utf8").replace(/^status: .*$/m, `status: ${status}`))
  }

  it("status: closed in an executing crew's record keeps it executing; /crew names it; /crew confirm leads to the close dialog", async () => {
    const p = await fresh()
    goal.governs = true
    const { crewPath } = await p.service.begin(SESSION, { ...REGISTRATION, execution: "waves" }, neverAsked)
    goal.governs = false
    setStatus(crewPath, "closed")
    const overview = await runCrewCommand(p.service, roster, SESSION, "")
    expect(overview.user).toContain(`The record says closed; confirm? /crew confirm (the crew stays executing until you do).`)
    expect(p.service.liveFor(SESSION)?.value).toEqual({ executing: "working" })
    expect(p.service.liveFor(SESSION)?.context.pendingDocument).toBe("closed")
    expect((await transitions(p, crewPath)).at(-1)).toBe("executing.working|crew.document.changed|executing.working")
    const confirm = await runCrewCommand(p.service, roster, SESSION, "confirm")
    expect(confirm.model).toContain("Call crew_close now")
    expect(confirm.user).toContain("Confirm in the close dialog")
    await p.service.close(SESSION, COMPLETE, allow)
    expect(frontmatter(crewPath).status).toBe("closed")
    expect(p.service.liveFor(SESSION)).toBeUndefined()
  })

  it("status: executing in a pending crew's record keeps the pending belt; a record back at pending drops it", async () => {
    const p = await fresh()
    const { crewPath } = await p.service.begin(SESSION, REGISTRATION, neverAsked)
    setStatus(crewPath, "executing")
    await runCrewCommand(p.service, roster, SESSION, "")
    expect(p.service.liveFor(SESSION)?.value).toEqual({ pending: "standby" })
    expect(p.service.liveFor(SESSION)?.context.pendingDocument).toBe("executing")
    expect(await p.service.dispatchRefusal(SESSION)).toContain("crew pending belt")
    setStatus(crewPath, "pending")
    await runCrewCommand(p.service, roster, SESSION, "")
    expect(p.service.liveFor(SESSION)?.context.pendingDocument).toBeNull()
    expect((await runCrewCommand(p.service, roster, SESSION, "confirm")).user).toContain("there is nothing to confirm")
  })

  it("status: abandoned in the record abandons the crew at once, pending or executing, and says why", async () => {
    // Pending (registered alone), then executing (armed at birth under a goal).
    for (const governed of [false, true]) {
      const p = await fresh()
      goal.governs = governed
      const { crewPath } = await p.service.begin(SESSION, governed ? { ...REGISTRATION, execution: "waves" } : REGISTRATION, neverAsked)
      goal.governs = false
      const before = p.service.liveFor(SESSION)?.value
      setStatus(crewPath, "abandoned")
      await runCrewCommand(p.service, roster, SESSION, "")
      expect(p.service.liveFor(SESSION), `from ${JSON.stringify(before)}`).toBeUndefined()
      expect(frontmatter(crewPath).status).toBe("abandoned")
      expect((await transitions(p, crewPath)).at(-1)).toMatch(/\|crew\.document\.changed\|abandoned$/)
    }
  })
})
