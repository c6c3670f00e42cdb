import { existsSync, readFileSync, readdirSync } from "node:fs"
import path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import type { PLAN_TOOL_IDS } from "../../../adapters/opencode/plan/plan.tools"
import { planTools } from "./plan.tools.helpers"
import type { ComposedRuntime } from "../../../src/runtime"
import { callRaw, toolContext, within } from "../opencode/tool.context"
import { PLAN_BODY, openRuntime, tempWorkspace } from "./plan.helpers"
import { defined } from "../../defined"

// The real plan tool definitions, driven the way opencode 1.18.33 drives them: args raw, straight from the model,
// over a real runtime (SQLite, files). Every hostile call gets one clear error and changes nothing.

describe("plan tools parse their raw arguments at the boundary", () => {
  let ws: ReturnType<typeof tempWorkspace>
  let rt: ComposedRuntime
  let tools: ReturnType<typeof planTools>
  const call = (tool: (typeof PLAN_TOOL_IDS)[number], raw: unknown) => callRaw(tools[tool], raw, toolContext("s1", ws.dir))
  const planFiles = () => (existsSync(path.join(ws.dir, ".opencode/plan")) ? readdirSync(path.join(ws.dir, ".opencode/plan")) : [])

  beforeEach(async () => {
    ws = tempWorkspace()
    rt = await openRuntime(ws.dir, ws.clock)
    tools = planTools(rt)
  })
  afterEach(async () => {
    await rt.close()
    ws.cleanup()
  })

  it("a wrong type, an unknown or a missing argument is named with what was expected, before any file exists", async () => {
    await expect(call("plan_read", { path: 5 })).rejects.toThrow(/^plan_read: argument "path" must be a string \(got number\)$/)
    await expect(call("plan_read", { recent: "yes" })).rejects.toThrow(/^plan_read: argument "recent" must be true or false \(got string\)$/)
    await expect(call("plan_read", { foo: 1 })).rejects.toThrow(/^plan_read: unknown argument "foo"$/)
    await expect(call("plan_read", { offset: 1.5 })).rejects.toThrow(/^plan_read: argument "offset" must be a whole number \(got 1\.5\)$/)
    await expect(call("plan_read", { limit: 0 })).rejects.toThrow(/^plan_read: argument "limit" must be at least 1 \(got 0\)$/)
    await expect(call("plan_read", null)).rejects.toThrow(/^plan_read: arguments must be an object \(got null\)$/)
    await expect(call("plan_read", ["path"])).rejects.toThrow(/^plan_read: arguments must be an object \(got array\)$/)
    await expect(call("plan_write", {})).rejects.toThrow(/^plan_write: argument "content" is missing \(expected a string\)$/)
    await expect(call("plan_write", { content: [PLAN_BODY] })).rejects.toThrow(/^plan_write: argument "content" must be a string \(got array\)$/)
    await expect(call("plan_write", { content: "" })).rejects.toThrow(/^plan_write: argument "content" must not be empty \(got 0 characters\)$/)
    await expect(call("plan_write", { content: PLAN_BODY, title: null, draft: true })).rejects.toThrow(
      /^plan_write: argument "title" must be a string \(got null\); unknown argument "draft"$/,
    )
    expect(planFiles()).toEqual([])
  })

  it("every plan tool refuses hostile args on a live draft and leaves the document byte for byte", async () => {
    expect(await call("plan_write", { content: PLAN_BODY })).toContain("Status: draft")
    const file = defined(planFiles()[0], "the plan file plan_write wrote")
    const before = readFileSync(path.join(ws.dir, ".opencode/plan", file), "utf8")
    await expect(call("plan_edit", { oldString: null, newString: "x", replaceAll: "yes" })).rejects.toThrow(
      /^plan_edit: argument "oldString" must be a string \(got null\); argument "replaceAll" must be true or false \(got string\)$/,
    )
    await expect(call("plan_edit", { oldString: "Goal" })).rejects.toThrow(/^plan_edit: argument "newString" is missing \(expected a string\)$/)
    await expect(call("plan_tick", { task: "1" })).rejects.toThrow(/^plan_tick: argument "task" must be a number \(got string\)$/)
    await expect(call("plan_tick", {})).rejects.toThrow(/^plan_tick: argument "task" is missing \(expected a number\)$/)
    await expect(call("plan_approve", { force: true })).rejects.toThrow(/^plan_approve: unknown argument "force"$/)
    await expect(call("plan_close", { checks: [] })).rejects.toThrow(/^plan_close: argument "checks" must hold at least 1 item \(got 0 items\)$/)
    await expect(call("plan_close", { checks: [{ criterion: 5, pass: true, evidence: "ran it", proof: "x" }] })).rejects.toThrow(
      /^plan_close: argument "checks\[0\]\.criterion" must be a string \(got number\); argument "checks\[0\]" has an unknown key "proof"$/,
    )
    await expect(call("plan_close", { checks: "all pass" })).rejects.toThrow(/^plan_close: argument "checks" must be an array \(got string\)$/)
    await expect(call("plan_discard", { supersede: "" })).rejects.toThrow(/^plan_discard: argument "supersede" must not be empty \(got 0 characters\)$/)
    await expect(call("plan_discard", { reason: { why: "x" } })).rejects.toThrow(/^plan_discard: argument "reason" must be a string \(got object\)$/)
    expect(readFileSync(path.join(ws.dir, ".opencode/plan", file), "utf8")).toBe(before)
    expect(rt.plans.statusOf(`.opencode/plan/${file}`)).toBe("draft")
  })

  it("plan_edit with a number as oldString answers an error promptly instead of looping", async () => {
    // The plan holds "40": a number the text contains is the case that once searched forever.
    await call("plan_write", { content: PLAN_BODY })
    const edit = call("plan_edit", { oldString: 40, newString: "x" })
    await expect(within(edit, 10_000, "plan_edit")).rejects.toThrow(/^plan_edit: argument "oldString" must be a string \(got number\)$/)
  })

  it("defaults are applied by the parse: plan_read windows and plan_edit's replaceAll need no argument", async () => {
    await call("plan_write", { content: PLAN_BODY })
    const read = await call("plan_read", {})
    expect(read).toMatch(/^\.opencode\/plan\/2026-11-30-fix-login-timeout\.md\n1: ---/)
    expect(await call("plan_read", undefined)).toBe(read)
    expect(await call("plan_edit", { oldString: "Raise the timeout", newString: "Raise the idle timeout" })).toContain("Plan edited")
    expect(await call("plan_read", { pattern: "idle timeout" })).toMatch(/1 matching line\(s\)\n\d+: - \[ \] 2\. Raise the idle timeout$/)
  })
})
