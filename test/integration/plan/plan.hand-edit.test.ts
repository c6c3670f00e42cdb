import { readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { type LifecycleStore, openLifecycleStore } from "../../../adapters/storage/lifecycle.store"
import { FsPlanFiles } from "../../../adapters/workspace/plan.files"
import { LifecycleHost } from "../../../services/lifecycle/lifecycle.host"
import { definePlanLifecycle } from "../../../services/plan/plan.lifecycle"
import { PlanRegistry } from "../../../services/plan/plan.registry"
import { PlanService } from "../../../services/plan/plan.service"
import type { ComposedRuntime } from "../../../src/runtime"
import { PLAN_BODY, allow, memoryLogger, openRuntime, tempWorkspace } from "./plan.helpers"
import { transitionsOf } from "./plan.tools.helpers"

// Defect 7: a hand edit of a live plan's status while opencode runs is followed by the gate on the next tool call,
// without a restart, and the move is a recorded transition. The gate re-reads a document only when its stat changed.

describe("the gate follows a hand edit of the plan document", () => {
  let ws: ReturnType<typeof tempWorkspace>
  let rt: ComposedRuntime
  let log: ReturnType<typeof memoryLogger>
  beforeEach(async () => {
    ws = tempWorkspace()
    log = memoryLogger()
    rt = await openRuntime(ws.dir, ws.clock, log)
  })
  afterEach(async () => {
    await rt.close()
    ws.cleanup()
  })
  const handEdit = (planPath: string, from: string, to: string) => {
    const file = path.join(ws.dir, planPath)
    const text = readFileSync(file, "utf8")
    expect(text).toContain(from)
    writeFileSync(file, text.replace(from, to))
  }

  it("draft → status: abandoned by hand opens writes again, recorded as document.reconcile", async () => {
    const { planPath } = await rt.plans.write("s1", PLAN_BODY)
    expect(await rt.plans.gate("s1", "bash")).toContain("draft write-ban")
    handEdit(planPath, "status: draft", "status: abandoned")
    expect(await rt.plans.gate("s1", "bash")).toBeNull()
    expect(rt.plans.liveFor("s1")).toBeUndefined()
    expect(rt.registry.snapshot(planPath)?.value).toBe("abandoned")
    expect((await transitionsOf(rt, planPath)).at(-1)).toBe("draft.editing|document.reconcile|abandoned")
  })

  it("a document no record backs that says approved is rebuilt as a draft at the next start: writes stay banned", async () => {
    // What a model with open writes could plant for a session of its own, or a database lost with approved plans.
    const { planPath } = await rt.plans.write("s1", PLAN_BODY)
    const planted = planPath.replace(/\.md$/, "-planted.md")
    const text = readFileSync(path.join(ws.dir, planPath), "utf8")
      .replace("status: draft", "status: approved")
      .replace(/^session: .*$/m, "session: s9")
    writeFileSync(path.join(ws.dir, planted), text)
    await rt.close()
    rt = await openRuntime(ws.dir, ws.clock, log)
    expect(rt.plans.liveFor("s9")).toBe(planted)
    expect(rt.registry.snapshot(planted)?.context.pendingDocument).toBe("approved")
    expect(await rt.plans.gate("s9", "bash")).toContain("draft write-ban")
    expect((await transitionsOf(rt, planted)).at(-1)).toBe("(none)|plan.document.changed|draft.editing")
    await rt.plans.approve("s9", allow)
    expect(await rt.plans.gate("s9", "bash")).toBeNull()
  })

  it("approved → status: draft by hand bans writes again", async () => {
    const { planPath } = await rt.plans.write("s1", PLAN_BODY)
    await rt.plans.approve("s1", allow)
    expect(await rt.plans.gate("s1", "edit")).toBeNull()
    handEdit(planPath, "status: approved", "status: draft")
    expect(await rt.plans.gate("s1", "edit")).toContain("draft write-ban")
    expect((await transitionsOf(rt, planPath)).at(-1)).toBe("approved.working|document.reconcile|draft.editing")
  })

  it("a hand edit that breaks the document keeps the plan as it was and says why in the log", async () => {
    const { planPath } = await rt.plans.write("s1", PLAN_BODY)
    handEdit(planPath, "status: draft", "status: finished-ish")
    expect(await rt.plans.gate("s1", "bash")).toContain("draft write-ban")
    expect(log.lines.join("\n")).toMatch(new RegExp(`warn: .*${planPath.replace(/\./g, "\\.")}.*status`))
    expect(await rt.plans.gate("s1", "read")).toBeNull()
  })
})

describe("a document written by someone else while Forge updates it", () => {
  let store: LifecycleStore
  let ws: ReturnType<typeof tempWorkspace>
  afterEach(async () => {
    await store.close()
    ws.cleanup()
  })

  it("is not overwritten: the step is refused, says so, and changes nothing; the next one keeps the edit", async () => {
    ws = tempWorkspace()
    store = await openLifecycleStore(ws.dir)
    const files = new FsPlanFiles(ws.dir)
    // An editor saves the document after Forge read it for a step, just before Forge writes it back.
    let editAfterRead: string | undefined
    const racing = Object.assign(Object.create(files) as FsPlanFiles, {
      write: async (p: string, text: string, unchangedSince?: string) => {
        if (editAfterRead !== undefined) {
          const file = path.join(ws.dir, p)
          writeFileSync(file, `${readFileSync(file, "utf8")}\n${editAfterRead}\n`)
          editAfterRead = undefined
        }
        return files.write(p, text, unchangedSince)
      },
    })
    const host = new LifecycleHost({ repository: async () => store.repository, clock: ws.clock, log: memoryLogger() })
    const registry = new PlanRegistry(definePlanLifecycle(host, { files: racing, clock: ws.clock }))
    const plans = new PlanService({ registry, files: racing, clock: ws.clock, log: memoryLogger() })
    const { planPath } = await plans.write("s1", PLAN_BODY)
    await plans.approve("s1", allow)
    const before = await store.repository.getSnapshot("plan", planPath)
    editAfterRead = "Note saved in an editor."
    await expect(plans.tick("s1", 1)).rejects.toThrow(/changed on disk while Forge was updating it .*nothing was applied; run the call again/)
    const file = path.join(ws.dir, planPath)
    expect(readFileSync(file, "utf8")).toContain("Note saved in an editor.")
    expect(readFileSync(file, "utf8")).toContain("- [ ] 1. Write a failing test")
    expect((await store.repository.getSnapshot("plan", planPath))?.revision).toBe(before?.revision)
    await plans.tick("s1", 1)
    expect(readFileSync(file, "utf8")).toMatch(/- \[x\] 1\. Write a failing test[\s\S]*Note saved in an editor\./)
    registry.stop()
  })
})

describe("the gate's cost", () => {
  let store: LifecycleStore
  let ws: ReturnType<typeof tempWorkspace>
  afterEach(async () => {
    await store.close()
    ws.cleanup()
  })

  it("reads a live plan's document only when its stat changed", async () => {
    ws = tempWorkspace()
    store = await openLifecycleStore(ws.dir)
    const files = new FsPlanFiles(ws.dir)
    let reads = 0
    const counting = Object.assign(Object.create(files) as FsPlanFiles, {
      read: (p: string) => {
        reads++
        return files.read(p)
      },
    })
    const host = new LifecycleHost({ repository: async () => store.repository, clock: ws.clock, log: memoryLogger() })
    const registry = new PlanRegistry(definePlanLifecycle(host, { files: counting, clock: ws.clock }))
    const plans = new PlanService({ registry, files: counting, clock: ws.clock, log: memoryLogger() })
    const { planPath } = await plans.write("s1", PLAN_BODY)
    await plans.gate("s1", "bash")
    const settled = reads
    for (let i = 0; i < 50; i++) expect(await plans.gate("s1", i % 2 ? "bash" : "read")).toEqual(i % 2 ? expect.stringContaining("write-ban") : null)
    expect(reads).toBe(settled)
    await plans.gate("s2", "bash")
    expect(reads).toBe(settled)
    const file = path.join(ws.dir, planPath)
    writeFileSync(file, readFileSync(file, "utf8").replace("status: draft", "status: abandoned"))
    expect(await plans.gate("s1", "bash")).toBeNull()
    expect(reads).toBe(settled + 1)
    registry.stop()
  })
})

describe("restoring at start", () => {
  let store: LifecycleStore | undefined
  let ws: ReturnType<typeof tempWorkspace>
  afterEach(async () => {
    await store?.close()
    ws.cleanup()
  })

  /** A plan service over the workspace whose document reads are listed, on a wall clock (records are stamped with it). */
  const serviceOver = (dir: string, repository: LifecycleStore["repository"]) => {
    const files = new FsPlanFiles(dir)
    const reads: string[] = []
    const listing = Object.assign(Object.create(files) as FsPlanFiles, {
      read: (p: string) => {
        reads.push(p)
        return files.read(p)
      },
    })
    const clock = { now: () => Date.now() }
    const host = new LifecycleHost({ repository: async () => repository, clock, log: memoryLogger() })
    const registry = new PlanRegistry(definePlanLifecycle(host, { files: listing, clock }))
    return { reads, registry, plans: new PlanService({ registry, files: listing, clock, log: memoryLogger() }) }
  }

  it("reads only the documents changed since their record was written, and the gate still follows the others", async () => {
    ws = tempWorkspace()
    store = await openLifecycleStore(ws.dir)
    const before = serviceOver(ws.dir, store.repository)
    const kept = (await before.plans.write("s1", PLAN_BODY)).planPath
    const edited = (await before.plans.write("s2", PLAN_BODY.replace("# Fix login timeout", "# Second plan"))).planPath
    before.registry.stop()
    await new Promise((resolve) => setTimeout(resolve, 20))
    const file = path.join(ws.dir, edited)
    writeFileSync(file, readFileSync(file, "utf8").replace("status: draft", "status: abandoned"))

    const after = serviceOver(ws.dir, store.repository)
    const report = await after.plans.sync.restore(store.repository)
    expect(report.restored.sort()).toEqual([kept, edited].sort())
    expect(after.reads).toEqual([edited])
    expect(report.reconciled).toEqual([edited])
    expect(after.plans.liveFor("s2")).toBeUndefined()
    // The unread one is followed by the gate's first look, like any plan.
    expect(await after.plans.gate("s1", "bash")).toEqual(expect.stringContaining("write-ban"))
    expect(after.reads).toEqual([edited, kept])
    after.registry.stop()
  })
})
