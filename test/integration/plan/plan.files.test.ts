import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { tempDir } from "../../temp.dir"
import { handlePlanCommand } from "../../../adapters/opencode/plan/plan.command.hook"
import type { ComposedRuntime } from "../../../src/runtime"
import { PLAN_BODY, openRuntime, tempWorkspace } from "./plan.helpers"
import { defined } from "../../defined"

// Risks from issue 6: what the plan folder hands over (symbolic links out of the workspace, folders named like
// documents), what /plan lists when a document cannot be read, and content that carries its own frontmatter.

const DOC = `---\nstatus: draft\ntitle: Outside\ncreated: 2026-11-29T00:00:00.000Z\nupdated: 2026-11-29T00:00:00.000Z\n---\n${PLAN_BODY}`

describe("the plan folder on disk", () => {
  let ws: ReturnType<typeof tempWorkspace>
  let outside: string
  let rt: ComposedRuntime
  beforeEach(async () => {
    ws = tempWorkspace()
    outside = tempDir("forge-outside-")
    rt = await openRuntime(ws.dir, ws.clock)
  })
  afterEach(async () => {
    await rt.close()
    ws.cleanup()
  })
  const planDir = () => {
    const dir = path.join(ws.dir, ".opencode/plan")
    mkdirSync(dir, { recursive: true })
    return dir
  }
  const listing = async (session = "s1") => {
    const parts = [{ type: "text", text: "template" }]
    await handlePlanCommand(rt.planHarness, session, "", parts)
    return defined(parts[0], "the command's text part").text
  }

  it("a document linked to a file outside the workspace is refused by plan_read and listed as unreadable", async () => {
    writeFileSync(path.join(outside, "secret.md"), DOC)
    symlinkSync(path.join(outside, "secret.md"), path.join(planDir(), "2026-11-29-leak.md"))
    await expect(rt.queries.read("s1", { path: ".opencode/plan/2026-11-29-leak.md" })).rejects.toThrow(/resolves to .*secret\.md, outside the workspace/)
    expect(await listing()).toMatch(/- \.opencode\/plan\/2026-11-29-leak\.md \[unreadable\] .*outside the workspace/)
    expect(await rt.queries.read("s1", { recent: true })).toMatch(/2026-11-29-leak\.md \[unreadable\] .*outside the workspace/)
  })

  it("a plan folder linked out of the workspace is neither read nor written", async () => {
    mkdirSync(path.join(ws.dir, ".opencode"), { recursive: true })
    writeFileSync(path.join(outside, "2026-11-29-there.md"), DOC)
    symlinkSync(outside, path.join(ws.dir, ".opencode/plan"))
    await expect(rt.queries.read("s1", { path: ".opencode/plan/2026-11-29-there.md" })).rejects.toThrow(/outside the workspace/)
    await expect(rt.plans.write("s1", PLAN_BODY)).rejects.toThrow(/outside the workspace/)
    expect(readdirSync(outside)).toEqual(["2026-11-29-there.md"])
    expect(rt.plans.liveFor("s1")).toBeUndefined()
  })

  it("a link that stays inside the workspace is followed", async () => {
    writeFileSync(path.join(ws.dir, "kept-plan.md"), DOC)
    symlinkSync(path.join(ws.dir, "kept-plan.md"), path.join(planDir(), "2026-11-29-linked.md"))
    expect(await rt.queries.read("s1", { path: ".opencode/plan/2026-11-29-linked.md" })).toContain("# Fix login timeout")
    expect(await listing()).toContain("2026-11-29-linked.md [draft]")
  })

  it("a folder named like a document gets a clear error, not a raw EISDIR, and is listed with the reason", async () => {
    mkdirSync(path.join(planDir(), "2026-11-29-folder.md"))
    const read = rt.queries.read("s1", { path: ".opencode/plan/2026-11-29-folder.md" })
    await expect(read).rejects.toThrow(/is a folder, not a file/)
    await expect(read).rejects.not.toThrow(/EISDIR/)
    expect(await listing()).toMatch(/2026-11-29-folder\.md \[unreadable\] .*is a folder, not a file/)
  })

  it("plan_write content that carries its own frontmatter is refused, and nothing is written", async () => {
    await expect(rt.plans.write("s1", DOC)).rejects.toThrow(/starts with its own frontmatter block.*send the body only/)
    expect(existsSync(path.join(ws.dir, ".opencode/plan"))).toBe(false)
    const { planPath } = await rt.plans.write("s1", PLAN_BODY)
    const before = readFileSync(path.join(ws.dir, planPath), "utf8")
    await expect(rt.plans.write("s1", `\n${DOC}`)).rejects.toThrow(/send the body only/)
    await expect(rt.plans.edit("s1", "# Fix login timeout", "---\nstatus: approved\n---\n# Fix login timeout")).rejects.toThrow(/send the body only/)
    expect(readFileSync(path.join(ws.dir, planPath), "utf8")).toBe(before)
    expect(before.match(/^---$/gm)).toHaveLength(2)
  })
})
