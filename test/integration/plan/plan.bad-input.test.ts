import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, it } from "vitest"
import { writeFileAtomic } from "../../../adapters/workspace/atomic.write"
import { within } from "../opencode/tool.context"
import { PLAN_BODY, allow, memoryLogger, openRuntime, tempWorkspace, useRuntime } from "./plan.helpers"
import { defined } from "../../defined"

describe("bad input gets a clear error and loses nothing", () => {
  const live = useRuntime()
  const planFiles = () => (existsSync(path.join(live.ws.dir, ".opencode/plan")) ? readdirSync(path.join(live.ws.dir, ".opencode/plan")) : [])

  it("a body with duplicate task numbers is refused before any file exists", async () => {
    const body = PLAN_BODY.replace("- [ ] 2. Raise the timeout", "- [ ] 1. Raise the timeout")
    await expect(live.rt.plans.write("s1", body)).rejects.toThrow(/\.opencode\/plan\/2026-11-30-fix-login-timeout\.md:\d+: .*duplicate task number 1/)
    expect(planFiles()).toEqual([])
    expect(live.rt.plans.liveFor("s1")).toBeUndefined()
  })

  it("a body without an Acceptance Criteria section is refused, naming the section", async () => {
    const body = PLAN_BODY.slice(0, PLAN_BODY.indexOf("## Acceptance Criteria"))
    await expect(live.rt.plans.write("s1", body)).rejects.toThrow(/Acceptance Criteria/)
    expect(planFiles()).toEqual([])
  })

  it("an edit that would break the document leaves it byte for byte as it was", async () => {
    const { planPath } = await live.rt.plans.write("s1", PLAN_BODY)
    const before = readFileSync(path.join(live.ws.dir, planPath), "utf8")
    await expect(live.rt.plans.edit("s1", "- [ ] 2.", "- [ ] 4.")).rejects.toThrow(/task/)
    await expect(live.rt.plans.edit("s1", "no such text", "x")).rejects.toThrow(/oldString was found 0 times/)
    expect(readFileSync(path.join(live.ws.dir, planPath), "utf8")).toBe(before)
  })

  it("the service refuses a non-string oldString promptly, whoever skipped the tool's parse", async () => {
    const { planPath } = await live.rt.plans.write("s1", PLAN_BODY)
    const before = readFileSync(path.join(live.ws.dir, planPath), "utf8")
    const edit = live.rt.plans.edit("s1", 40 as unknown as string, "x")
    await expect(within(edit, 10_000, "plans.edit")).rejects.toThrow(/^oldString must be a string \(got number\)$/)
    expect(readFileSync(path.join(live.ws.dir, planPath), "utf8")).toBe(before)
  })

  it("a plan path outside .opencode/plan/ is refused by plan_read", async () => {
    await expect(live.rt.queries.read("s1", { path: "../etc/passwd" })).rejects.toThrow(/outside \.opencode\/plan\//)
    await expect(live.rt.queries.read("s1", { path: ".opencode/plan/../../secret.md" })).rejects.toThrow(/outside \.opencode\/plan\//)
    await expect(live.rt.queries.read("s1", { path: "src/app.ts" })).rejects.toThrow(/outside \.opencode\/plan\//)
  })

  it("an invalid regex pattern is named in the error", async () => {
    await live.rt.plans.write("s1", PLAN_BODY)
    await expect(live.rt.queries.read("s1", { pattern: "([a-" })).rejects.toThrow(/\(\[a-/)
  })

  it("a hand-broken document is reported at restart with its file and line, and the host keeps running", async () => {
    const { planPath } = await live.rt.plans.write("s1", PLAN_BODY)
    await live.rt.close()
    const file = path.join(live.ws.dir, planPath)
    writeFileSync(file, readFileSync(file, "utf8").replace("status: draft", "status: drafty"))
    const log = memoryLogger()
    live.rt = await openRuntime(live.ws.dir, live.ws.clock, log)
    expect(live.rt.restoreReport.problems[0]?.problem).toMatch(/:2: unknown status "drafty"/)
    expect(log.lines.join("\n")).toContain(planPath)
    // The actor still holds the ban: a broken document never silently lifts it.
    expect(await live.rt.plans.gate("s1", "write")).toContain("draft write-ban")
    await expect(live.rt.plans.approve("s1", allow)).rejects.toThrow(/unknown status "drafty"/)
  })

  it("a snapshot that no longer fits the machine is rebuilt from the document, never crashes", async () => {
    const { planPath } = await live.rt.plans.write("s1", PLAN_BODY)
    await live.rt.close()
    const { openLifecycleStore } = await import("../../../adapters/storage/lifecycle.store")
    const store = await openLifecycleStore(live.ws.dir)
    const row = defined(await store.repository.getSnapshot("plan", planPath), `the snapshot of ${planPath}`)
    await store.repository.saveSnapshot({ ...row, snapshot: { ...(row.snapshot as object), value: { reviewing: "x" } } })
    await store.close()
    live.rt = await openRuntime(live.ws.dir, live.ws.clock)
    expect(live.rt.restoreReport.problems[0]?.problem).toMatch(/did not fit the plan machine .*rebuilt from the document/)
    expect(live.rt.registry.snapshot(planPath)?.value).toEqual({ draft: "editing" })
  })
})

describe("atomic writes", () => {
  it("a failed write leaves the old file and no temp file behind", async () => {
    const ws = tempWorkspace()
    try {
      const file = path.join(ws.dir, "doc.md")
      await writeFileAtomic(file, "old\n")
      // A directory where the temp file's rename target is cannot be replaced by a file.
      const blocked = path.join(ws.dir, "blocked.md")
      mkdirSync(blocked)
      await expect(writeFileAtomic(blocked, "new\n")).rejects.toThrow()
      expect(readdirSync(ws.dir).sort()).toEqual(["blocked.md", "doc.md"])
      await writeFileAtomic(file, "new\n")
      expect(readFileSync(file, "utf8")).toBe("new\n")
    } finally {
      ws.cleanup()
    }
  })
})
