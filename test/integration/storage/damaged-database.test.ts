// A workspace database Forge cannot use, damaged for real on disk: the runtime still opens (on an in-memory stand-in
// rebuilt from the plan documents), names the file, what is wrong and what to do, and a readable draft still bans
// writes. What SQLite recovers silently (a truncated file, a lost write-ahead log) is logged.
import { copyFileSync, existsSync, mkdirSync, openSync, rmSync, statSync, truncateSync, writeFileSync, writeSync, closeSync } from "node:fs"
import { spawnSync } from "node:child_process"
import path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { databasePath } from "../../../adapters/storage/database.path"
import type { ComposedRuntime } from "../../../src/runtime"
import { PLAN_BODY, memoryLogger, openRuntime, tempWorkspace } from "../plan/plan.helpers"
import { defined } from "../../defined"

describe("a database Forge cannot use", () => {
  let ws: ReturnType<typeof tempWorkspace>
  const open: ComposedRuntime[] = []
  const start = async (dir = ws.dir) => {
    const log = memoryLogger()
    const runtime = await openRuntime(dir, ws.clock, log)
    open.push(runtime)
    return { runtime, log }
  }
  /** A real database holding the draft of session s1, closed cleanly; returns the plan's path. */
  const draftOfS1 = async (): Promise<string> => {
    const { runtime } = await start()
    const { planPath } = await runtime.plans.write("s1", PLAN_BODY)
    await runtime.close()
    open.pop()
    return planPath
  }
  /** Two drafts (sessions s1 and s4) whose database row of the first is torn; the runtime that wrote them is closed. */
  const twoDraftsOneTorn = async () => {
    const { runtime: writer } = await start()
    const damaged = await writer.plans.write("s1", PLAN_BODY)
    const intact = await writer.plans.write("s4", PLAN_BODY.replace("Fix login timeout", "Other work"))
    await writer.close()
    open.pop()
    const { openLifecycleStore } = await import("../../../adapters/storage/lifecycle.store")
    const store = await openLifecycleStore(ws.dir)
    await store.connection.driver.run("UPDATE actors SET snapshot = ? WHERE instance_id = ?", ["{torn", damaged.planPath])
    await store.close()
    return { damaged, intact }
  }
  const expectDraftBanHolds = async (runtime: ComposedRuntime, planPath: string) => {
    expect(runtime.plans.liveFor("s1")).toBe(planPath)
    expect(await runtime.plans.gate("s1", "write")).toMatch(/draft write-ban/)
    expect(await runtime.plans.gate("s1", "read")).toBeNull()
    expect(await runtime.plans.gate("s2", "write")).toBeNull()
  }

  beforeEach(() => {
    ws = tempWorkspace()
  })
  afterEach(async () => {
    for (const runtime of open.splice(0)) await runtime.close()
    ws.cleanup()
  })

  const damages: [string, (file: string) => void, RegExp, (file: string) => string][] = [
    [
      ".opencode/forge is a file",
      (file) => {
        rmSync(path.dirname(file), { recursive: true, force: true })
        writeFileSync(path.dirname(file), "not a folder\n")
      },
      /\.opencode\/forge is a file, not a folder/,
      (file) => path.dirname(file),
    ],
    [
      "forge.db is a folder",
      (file) => {
        rmSync(file, { force: true })
        mkdirSync(file)
      },
      /forge\.db is a folder, not a database file/,
      (file) => file,
    ],
    [
      "forge.db is not a database",
      (file) => writeFileSync(file, "this is not a database\n".repeat(20)),
      /does not start with the SQLite header/,
      (file) => file,
    ],
    [
      "forge.db's header bytes are overwritten",
      (file) => {
        const fd = openSync(file, "r+")
        writeSync(fd, Buffer.alloc(16, 0x41), 0, 16, 0)
        closeSync(fd)
      },
      /does not start with the SQLite header/,
      (file) => file,
    ],
  ]

  for (const [name, damage, problem, blocking] of damages) {
    it(`${name}: the runtime opens on a stand-in, names the file, the problem and the remedy, and the draft still bans writes`, async () => {
      const planPath = await draftOfS1()
      const file = databasePath(ws.dir)
      damage(file)
      const { runtime, log } = await start()
      expect(runtime.storageTrouble?.file).toBe(file)
      expect(runtime.storageTrouble?.problem).toMatch(problem)
      expect(runtime.storageTrouble?.remedy).toContain(`move ${blocking(file)} aside`)
      expect(runtime.storageTrouble?.remedy).toMatch(/rebuilds live plans from their documents/)
      expect(log.lines.find((l) => l.startsWith("error:"))).toContain(`Forge cannot use its database ${file}`)
      await expectDraftBanHolds(runtime, planPath)
      // The stand-in records like the real database would: the rebuild is a transition.
      expect((await runtime.repository.listTransitions({ instanceId: planPath })).map((t) => t.event)).toEqual(["document.reconcile"])
    })
  }

  it("a healthy database reports no trouble and logs nothing about its health", async () => {
    await draftOfS1()
    const { runtime, log } = await start()
    expect(runtime.storageTrouble).toBeUndefined()
    expect(log.lines.filter((l) => /Forge database|cannot use/.test(l))).toEqual([])
  })

  it("a truncated database is logged as truncated, and a draft still bans writes whatever SQLite makes of the rest", async () => {
    const { runtime: writer } = await start()
    const { planPath } = await writer.plans.write("s1", PLAN_BODY)
    // Enough history that the file spans many pages.
    for (let i = 0; i < 300; i++)
      await writer.repository.commit(
        {
          machineId: "note",
          machineVersion: "1",
          instanceId: `n${i}`,
          sessionId: null,
          state: "x",
          terminal: true,
          snapshot: { pad: "x".repeat(400) },
          document: null,
          updatedAt: i,
        },
        { machineId: "note", instanceId: `n${i}`, sessionId: null, from: "(none)", event: "e", to: "x", at: i },
      )
    await writer.close()
    open.pop()
    const file = databasePath(ws.dir)
    truncateSync(file, Math.floor(statSync(file).size / 2 / 4096) * 4096)
    const { runtime, log } = await start()
    expect(log.lines.join("\n")).toMatch(/warn: Forge database: .*forge\.db is truncated: its header says \d+ pages/)
    await expectDraftBanHolds(runtime, planPath)
  })

  it("a lost write-ahead log is logged, and the live plans it held are rebuilt from their documents", async () => {
    const { runtime: writer } = await start()
    const { planPath } = await writer.plans.write("s1", PLAN_BODY)
    // While the writer is open its last transactions live in forge.db-wal: copy the database without it.
    const copy = tempWorkspace()
    try {
      const from = databasePath(ws.dir)
      const to = databasePath(copy.dir)
      mkdirSync(path.dirname(to), { recursive: true })
      mkdirSync(path.join(copy.dir, ".opencode", "plan"), { recursive: true })
      copyFileSync(from, to)
      copyFileSync(`${from}-shm`, `${to}-shm`)
      copyFileSync(path.join(ws.dir, planPath), path.join(copy.dir, planPath))
      expect(existsSync(`${from}-wal`)).toBe(true)
      const { runtime, log } = await start(copy.dir)
      expect(log.lines.join("\n")).toMatch(/warn: Forge database: the write-ahead log forge\.db-wal is missing/)
      expect(runtime.storageTrouble).toBeUndefined()
      await expectDraftBanHolds(runtime, planPath)
      expect(log.lines.join("\n")).toMatch(/rebuilt 1 live plan\(s\) from their documents/)
    } finally {
      for (const runtime of open.splice(1)) await runtime.close()
      copy.cleanup()
    }
  })

  it("a database moved aside: live plans are rebuilt from their documents, finished ones are not", async () => {
    const { runtime: writer } = await start()
    const { planPath } = await writer.plans.write("s1", PLAN_BODY)
    const other = await writer.plans.write("s3", PLAN_BODY.replace("Fix login timeout", "Old work"))
    await writer.plans.discard("s3", { by: "user" }, "dropped")
    await writer.close()
    open.pop()
    const file = databasePath(ws.dir)
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true })
    const { runtime } = await start()
    expect(runtime.storageTrouble).toBeUndefined()
    await expectDraftBanHolds(runtime, planPath)
    expect(runtime.registry.snapshot(other.planPath)).toBeUndefined()
    expect(runtime.plans.liveFor("s3")).toBeUndefined()
  })

  it("one damaged snapshot row costs only its plan: logged, and rebuilt from its document", async () => {
    const { damaged, intact } = await twoDraftsOneTorn()
    const { runtime, log } = await start()
    expect(runtime.storageTrouble).toBeUndefined()
    await expectDraftBanHolds(runtime, damaged.planPath)
    expect(await runtime.plans.gate("s4", "edit")).toMatch(/draft write-ban/)
    expect(runtime.plans.liveFor("s4")).toBe(intact.planPath)
    expect(log.lines.join("\n")).toMatch(new RegExp(`warn: plan ${damaged.planPath}: actors row plan/.*snapshot is not valid JSON.*rebuilt from the document`))
  })

  it("forgecharts status lists a damaged row as damaged, beside the intact ones", async () => {
    const { damaged, intact } = await twoDraftsOneTorn()
    const root = path.resolve(__dirname, "../../..")
    const result = spawnSync(path.join(root, "node_modules/.bin/tsx"), [path.join(root, "src/cli.ts"), "status", ws.dir], { encoding: "utf8", timeout: 60_000 })
    expect(result.status, result.stderr).toBe(0)
    expect(result.stdout).toContain(`plan\tdamaged\t${damaged.planPath}\tactors row plan/${damaged.planPath}: snapshot is not valid JSON`)
    expect(result.stdout).toMatch(new RegExp(`plan\tdraft.editing\t${intact.planPath}`))
  })

  it("a snapshot whose context does not fit the plan machine is rebuilt from its document", async () => {
    const { runtime: writer } = await start()
    const { planPath } = await writer.plans.write("s1", PLAN_BODY)
    await writer.close()
    open.pop()
    const { openLifecycleStore } = await import("../../../adapters/storage/lifecycle.store")
    const store = await openLifecycleStore(ws.dir)
    const row = defined((await store.repository.loadSnapshots({ machineId: "plan" }))[0], "the plan's snapshot row")
    const snapshot = row.snapshot as { context: Record<string, unknown> }
    await store.repository.saveSnapshot({ ...row, snapshot: { ...snapshot, context: { ...snapshot.context, tasks: "all of them" } } })
    await store.close()
    const { runtime, log } = await start()
    await expectDraftBanHolds(runtime, planPath)
    expect(runtime.registry.snapshot(planPath)?.context.tasks).toHaveLength(2)
    expect(log.lines.join("\n")).toMatch(/persisted context does not fit.*tasks.*rebuilt from the document/)
  })
})
