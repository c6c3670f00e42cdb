import { readFileSync, rmSync } from "node:fs"
import path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { handlePlanCommand } from "../../../adapters/opencode/plan/plan.command.hook"
import { parsePlanDocument } from "../../../services/plan/plan.document"
import type { ComposedRuntime } from "../../../src/runtime"
import { PLAN_BODY, allow, openRuntime, tempWorkspace } from "./plan.helpers"
import { transitionsOf } from "./plan.tools.helpers"
import { defined } from "../../defined"

// Defect 5: `/plan resume` of a plan an earlier opencode run bound to its own session must rebind it to the
// current session (document and transition log), so that plan_read and plan_tick work there afterwards.

describe("/plan resume rebinds a plan from an earlier run to the current session", () => {
  let ws: ReturnType<typeof tempWorkspace>
  let rt: ComposedRuntime
  beforeEach(() => {
    ws = tempWorkspace()
  })
  afterEach(async () => {
    await rt.close()
    ws.cleanup()
  })
  const doc = (planPath: string) => parsePlanDocument(readFileSync(path.join(ws.dir, planPath), "utf8"), planPath)
  const resume = async (session: string) => {
    const parts = [{ type: "text", text: "template" }]
    await handlePlanCommand(rt.planHarness, session, "resume", parts)
    return defined(parts[0], "the command's text part").text
  }

  /** An earlier run: ses_old writes and approves a plan, then opencode exits. */
  async function earlierRun(): Promise<string> {
    const first = await openRuntime(ws.dir, ws.clock)
    const { planPath } = await first.plans.write("ses_old", PLAN_BODY)
    await first.plans.approve("ses_old", allow)
    await first.close()
    return planPath
  }

  for (const database of ["kept", "lost"] as const) {
    it(`database ${database}: the plan, its document and its log move to the new session`, async () => {
      const planPath = await earlierRun()
      if (database === "lost") rmSync(path.join(ws.dir, ".opencode/forge"), { recursive: true, force: true })
      rt = await openRuntime(ws.dir, ws.clock)
      const text = await resume("ses_new")
      expect(text).toContain("ses_old")
      if (database === "lost") {
        // No record backs the document: its status approved is the document's word alone, held for the user's dialog.
        expect(text).toContain(`resumed ${planPath} (draft) in this session`)
        expect(text).toContain("says status: approved, but the plan stays draft")
        expect(await rt.plans.hasDraft("ses_new")).toBe(true)
        await rt.plans.approve("ses_new", allow)
      } else expect(text).toContain(`resumed ${planPath} (approved) in this session`)
      expect(rt.plans.liveFor("ses_new")).toBe(planPath)
      expect(rt.plans.liveFor("ses_old")).toBeUndefined()
      expect(doc(planPath).frontmatter.session).toBe("ses_new")
      expect(await rt.queries.read("ses_new", {})).toContain("## Tasks")
      await rt.plans.tick("ses_new", 1)
      expect(doc(planPath).tasks[0]?.ticked).toBe(true)
      const transitions = await transitionsOf(rt, planPath)
      if (database === "lost") {
        expect(transitions.slice(0, 4)).toEqual([
          "(none)|plan.document.changed|draft.editing",
          "draft.editing|plan.bind|draft.editing",
          "draft.editing|plan.approve|draft.confirming",
          "draft.confirming|dialog.allow|approved.working",
        ])
      } else expect(transitions).toContain("approved.working|plan.bind|approved.working")
      const row = await rt.repository.getSnapshot("plan", planPath)
      expect(row?.sessionId).toBe("ses_new")
    })
  }

  it("a session that already has a live plan is told plainly why it cannot resume another", async () => {
    const planPath = await earlierRun()
    rt = await openRuntime(ws.dir, ws.clock)
    const own = await rt.plans.write("ses_new", PLAN_BODY.replace("# Fix login timeout", "# Another plan"))
    expect(await resume("ses_new")).toContain(`resumed ${own.planPath} (draft)`)
    await expect(rt.plans.bind("ses_new", planPath)).rejects.toThrow(/already has a live plan/)
    expect(doc(planPath).frontmatter.session).toBe("ses_old")
  })
})
