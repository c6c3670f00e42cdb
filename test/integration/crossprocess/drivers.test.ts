// Issue 23, "whatever process is alive drives the work", for goals and loops: whole plugins in real processes on one workspace
// (plugin.child.ts), as two opencode processes load Forge. The goal's driver claim decides who sends its briefs; a
// process that started before the goal existed takes it over when its driver dies, and a second process's restore
// never closes a dialog that a live process shows.
import { afterAll, describe, expect, it } from "vitest"
import { execFileSync, spawnSync } from "node:child_process"
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { stateOf, transitionsOf, withDatabase } from "./database.read"
import type { PluginOps } from "./protocol"
import { type RuntimeProcess, useSharedWorkspace } from "./two.runtimes"

/** The test seams: a short debounce and driver watch, the restore right after start. */
const SEAMS = { FORGE_TEST_GOAL_DEBOUNCE_MS: "200", FORGE_TEST_DRIVER_WATCH_MS: "300", FORGE_TEST_RESTORE_DELAY_MS: "0" }
const CONTRACT = 'add make the answer 42 --success "the answer is 42" --check "true"'
const SESSION = "ses_goal_drivers"

const briefsIn = (prompts: { session: string; text: string }[]) =>
  prompts.filter((p) => p.session === SESSION && p.text.startsWith("[forge:goal-continue]")).length
const goalPathIn = (text: string): string => {
  const found = /\.opencode\/goal\/[^\s:]+\.md/.exec(text)?.[0]
  if (found === undefined) throw new Error(`no goal path in: ${text}`)
  return found
}

describe("goal drivers across opencode processes", () => {
  const ws = useSharedWorkspace()
  // The plugins' check and job logs go to the OS temp folder (this run's private one), as opencode's would.
  afterAll(() => {
    for (const folder of ["forge-goal-checks", "forgecharts"]) rmSync(path.join(tmpdir(), folder), { recursive: true, force: true })
  })

  it("a goal whose driver is killed is driven on, within 15 s, by a process that started before the goal existed", async () => {
    // B loads Forge on an empty workspace: no database, nothing to restore, no goal harness built.
    const [b] = await ws.startPlugins(SEAMS, "B")
    const [a] = await ws.startPlugins(SEAMS, "A")
    if (a === undefined || b === undefined) throw new Error("expected two plugins")
    await a.call("command", { session: SESSION, command: "goal", arguments: CONTRACT })
    expect(await a.call("command", { session: SESSION, command: "goal", arguments: "resume" })).toContain("Goal armed")
    // The session's turn ran in A: its idle is A's, and A, the goal's driver, sends the brief.
    await a.call("idle", { session: SESSION })
    await expect.poll(async () => briefsIn(await a.call("prompts", {})), { timeout: 10_000 }).toBe(1)
    // A live driver is never taken over: B has sent nothing.
    expect(briefsIn(await b.call("prompts", {}))).toBe(0)

    expect(statusLine(ws.dir, "goal")).toContain(`driven by opencode process ${a.pid}:`)

    await a.crash()
    // No idle will come for the session in B (its turn never ran there): B's own watch finds the goal's driver gone.
    await expect.poll(async () => briefsIn(await b.call("prompts", {})), { timeout: 15_000, interval: 250 }).toBe(1)
    // Who drives it now, on /goal and in forgecharts status.
    expect(await b.call("command", { session: SESSION, command: "goal", arguments: "" })).toContain(`Driver: driven by opencode process ${b.pid}:`)
    expect(statusLine(ws.dir, "goal")).toContain(`driven by opencode process ${b.pid}:`)
  }, 60_000)

  it("a compaction in a process that started before the goal was armed keeps the goal in view and opencode's continue off", async () => {
    const [b] = await ws.startPlugins(SEAMS, "B")
    const [a] = await ws.startPlugins(SEAMS, "A")
    if (a === undefined || b === undefined) throw new Error("expected two plugins")
    await a.call("command", { session: SESSION, command: "goal", arguments: CONTRACT })
    await a.call("command", { session: SESSION, command: "goal", arguments: "resume" })
    const compacted = await b.call("compaction", { session: SESSION })
    expect(compacted.autocontinue, "opencode's own continue after the compaction").toBe(false)
    expect(compacted.context.join("\n")).toContain("make the answer 42")
  }, 60_000)

  it("a goal whose driver is killed while no other process runs says why nobody drives it", async () => {
    const [a] = await ws.startPlugins(SEAMS, "A")
    if (a === undefined) throw new Error("expected a plugin")
    await a.call("command", { session: SESSION, command: "goal", arguments: CONTRACT })
    await a.call("command", { session: SESSION, command: "goal", arguments: "resume" })
    await a.crash()
    expect(statusLine(ws.dir, "goal")).toContain(`not driven: its driver ${a.pid}:`)
  }, 60_000)

  it("a process that starts while another shows a goal's resume dialog leaves the dialog open; only its holder moves the goal", async () => {
    const [a] = await ws.startPlugins(SEAMS, "A")
    if (a === undefined) throw new Error("expected a plugin")
    const added = await a.call("command", { session: SESSION, command: "goal", arguments: CONTRACT })
    const goalPath = goalPathIn(added)
    expect(await a.call("command", { session: SESSION, command: "goal", arguments: "resume" })).toContain("Goal armed")
    await a.call("command", { session: SESSION, command: "goal", arguments: "pause" })
    const resuming = a.call("tool", { session: SESSION, tool: "goal_resume", args: {}, dialog: { hold: "resume" } })
    await a.dialogOpened("resume")
    expect(await stateOf(ws.dir, "goal", goalPath)).toBe("paused.resuming")

    // B starts now and restores the workspace (the /goal overview waits for the restore to finish).
    const [b] = await ws.startPlugins(SEAMS, "B")
    if (b === undefined) throw new Error("expected a plugin")
    expect(await b.call("command", { session: SESSION, command: "goal", arguments: "" })).toContain(goalPath)
    expect(await stateOf(ws.dir, "goal", goalPath), "B's restore left A's dialog open").toBe("paused.resuming")
    expect((await transitionsOf(ws.dir, "goal")).filter((t) => t.event === "goal.restored")).toEqual([])

    // The user answers A's dialog: the goal resumes, as asked.
    await a.call("release", { hold: "resume", allow: true })
    expect(await resuming).toContain("Goal resumed")
    expect(await stateOf(ws.dir, "goal", goalPath)).toBe("active.working")
  }, 60_000)
})

const ROUNDS = 20

describe("loop drivers across opencode processes", () => {
  const ws = useSharedWorkspace()
  afterAll(() => {
    for (const folder of ["forge-goal-checks", "forgecharts"]) rmSync(path.join(tmpdir(), folder), { recursive: true, force: true })
  })

  it("a loop whose driver is killed is driven on, within 15 s, by a process that started before the loop", async () => {
    const git = (...args: string[]) => execFileSync("git", args, { cwd: ws.dir, stdio: "pipe" })
    git("init", "-q")
    writeFileSync(path.join(ws.dir, "README.md"), "# loop\n")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first")
    const [b] = await ws.startPlugins(SEAMS, "B")
    const [a] = await ws.startPlugins(SEAMS, "A")
    if (a === undefined || b === undefined) throw new Error("expected two plugins")
    const started = await a.call("tool", {
      session: SESSION,
      tool: "loop_start",
      args: { title: "count", plan: "## Phase 1: One\n\nWrite one.\n" },
      dialog: "allow",
    })
    expect(started).toContain("Loop count")
    const loopBriefs = (prompts: { session: string; text: string }[]) => prompts.filter((p) => p.text.startsWith("[forge:loop]")).length
    await expect.poll(async () => loopBriefs(await a.call("prompts", {})), { timeout: 10_000 }).toBe(1)
    expect(loopBriefs(await b.call("prompts", {}))).toBe(0)
    expect(statusLine(ws.dir, "loop")).toContain(`driven by opencode process ${a.pid}:`)

    await a.crash()
    // The pass's session went idle with A (no idle comes to B): B takes the loop over and drives the pass on.
    await expect.poll(async () => loopBriefs(await b.call("prompts", {})), { timeout: 15_000, interval: 250 }).toBeGreaterThan(0)
    expect(statusLine(ws.dir, "loop")).toContain(`driven by opencode process ${b.pid}:`)
  }, 60_000)
})

/** forge_shell in the background, surviving its opencode process: the job's id, once it is recorded as running. */
async function startSurvivor(host: RuntimeProcess<PluginOps>, dir: string): Promise<string> {
  const started = await host.call("tool", {
    session: SESSION,
    tool: "forge_shell",
    args: { command: "sleep 120", run_in_background: true, survive: true },
    dialog: "allow",
  })
  const jobId = /job: (job_\w+)/.exec(started)?.[1]
  if (jobId === undefined) throw new Error(`forge_shell answered without a job id: ${started}`)
  await expect.poll(() => stateOf(dir, "job", jobId), { timeout: 10_000 }).toBe("earlyReturned")
  return jobId
}

describe("survive job drivers across opencode processes", () => {
  const ws = useSharedWorkspace()
  afterAll(() => rmSync(path.join(tmpdir(), "forgecharts"), { recursive: true, force: true }))

  it("a survive job whose opencode process is killed is adopted, within 15 s, by a process that started before the job", async () => {
    const [b] = await ws.startPlugins(SEAMS, "B")
    const [a] = await ws.startPlugins(SEAMS, "A")
    if (a === undefined || b === undefined) throw new Error("expected two plugins")
    const jobId = await startSurvivor(a, ws.dir)
    const list = (p: typeof a) => p.call("tool", { session: SESSION, tool: "forge_jobs", args: { action: "list" }, dialog: "allow" })
    // A live host keeps its job: B's looks leave it alone.
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    expect(await list(b)).not.toContain(jobId)
    expect(statusLine(ws.dir, "job")).toContain(`driven by opencode process ${a.pid} (plugin instance`)

    await a.crash()
    // No restart comes: B's own driver watch finds the job's host gone and adopts the job, which still runs. (B lists
    // the job from the moment its restore reads it, before the claim: the recorded adoption is what says it is B's.)
    const adoptions = async () => (await transitionsOf(ws.dir, "job")).filter((t) => t.instanceId === jobId && t.event === "job.adopt").length
    await expect.poll(adoptions, { timeout: 15_000, interval: 250 }).toBe(1)
    expect(await list(b)).toContain(jobId)
    expect(statusLine(ws.dir, "job")).toContain(`driven by opencode process ${b.pid} (plugin instance`)
    // B holds the job now: it kills it (a process that does not run a job refuses to).
    expect(await b.call("tool", { session: SESSION, tool: "forge_jobs", args: { action: "kill", jobId }, dialog: "allow" })).toContain(jobId)
    await expect.poll(() => stateOf(ws.dir, "job", jobId), { timeout: 10_000 }).toBe("killed")
  }, 60_000)

  it("a survive job whose opencode process is killed while no other process runs says why nobody drives it", async () => {
    const [a] = await ws.startPlugins(SEAMS, "A")
    if (a === undefined) throw new Error("expected a plugin")
    const jobId = await startSurvivor(a, ws.dir)
    await a.crash()
    expect(statusLine(ws.dir, "job")).toContain(`not driven: its opencode process ${a.pid} has ended`)
    // The next process takes it up at its start, and ends it.
    const [b] = await ws.startPlugins(SEAMS, "B")
    if (b === undefined) throw new Error("expected a plugin")
    const kill = () => b.call("tool", { session: SESSION, tool: "forge_jobs", args: { action: "kill", jobId }, dialog: "allow" })
    await expect.poll(kill, { timeout: 15_000, interval: 250 }).toContain("killed")
    await expect.poll(() => stateOf(ws.dir, "job", jobId), { timeout: 10_000 }).toBe("killed")
  }, 60_000)
})

const root = path.resolve(import.meta.dirname, "../../..")
/** `forgecharts status` on the workspace: the line of the one instance of `machineId`. */
function statusLine(dir: string, machineId: string): string {
  const result = spawnSync(path.join(root, "node_modules/.bin/tsx"), [path.join(root, "src/cli.ts"), "status", dir], { encoding: "utf8", timeout: 60_000 })
  if (result.status !== 0) throw new Error(`forgecharts status failed: ${result.stderr}`)
  const lines = result.stdout.split("\n").filter((line) => line.startsWith(`${machineId}\t`))
  if (lines.length !== 1) throw new Error(`expected one ${machineId} line in:\n${result.stdout}`)
  return lines[0] ?? ""
}

/** Every goal row of the workspace: its document (the instance id), its session and state. */
async function goalRows(dir: string): Promise<{ goalPath: string; sessionId: string | null; state: string }[]> {
  return withDatabase(
    dir,
    (db) =>
      new Promise((resolve, reject) =>
        db.all<{ goalPath: string; sessionId: string | null; state: string }>(
          `SELECT instance_id AS goalPath, session_id AS sessionId, state FROM actors WHERE machine_id = 'goal'`,
          [],
          (error, rows) => (error ? reject(error) : resolve(rows)),
        ),
      ),
  )
}

const statusOfDocument = (dir: string, goalPath: string): string | undefined => /^status: (\w+)$/m.exec(readFileSync(path.join(dir, goalPath), "utf8"))?.[1]

describe("one live goal per session, whichever process arms", () => {
  const ws = useSharedWorkspace()
  afterAll(() => {
    for (const folder of ["forge-goal-checks", "forgecharts"]) rmSync(path.join(tmpdir(), folder), { recursive: true, force: true })
  })

  it(`two processes arm a goal in one session at once: one goal is live, and every document says what its row says (${ROUNDS} races)`, async () => {
    const [a, b] = await ws.startPlugins(SEAMS, "A", "B")
    if (a === undefined || b === undefined) throw new Error("expected two plugins")
    const write = (objective: string) => ({
      objective,
      success: ["it holds"],
      checks: [{ command: "true" }],
      constraints: [],
      nonGoals: [],
      arm: true,
      revise: false,
    })
    for (let round = 1; round <= ROUNDS; round++) {
      const session = `ses_race_${round}`
      // Both dialogs open side by side (each process's birth gate saw no live goal), then the user allows both at once.
      const calls = [
        a.attempt("tool", { session, tool: "goal_write", args: write(`goal of A, round ${round}`), dialog: { hold: `a${round}` } }),
        b.attempt("tool", { session, tool: "goal_write", args: write(`goal of B, round ${round}`), dialog: { hold: `b${round}` } }),
      ]
      await Promise.all([a.dialogOpened(`a${round}`), b.dialogOpened(`b${round}`)])
      await Promise.all([a.call("release", { hold: `a${round}`, allow: true }), b.call("release", { hold: `b${round}`, allow: true })])
      const answers = await Promise.all(calls)
      const rows = (await goalRows(ws.dir)).filter((row) => row.sessionId === session || answers.some((x) => x.ok && x.value.includes(row.goalPath)))
      const live = rows.filter((row) => row.state.startsWith("active") || row.state.startsWith("paused"))
      expect(
        live.map((row) => row.goalPath),
        `round ${round}: one live goal (${JSON.stringify(answers)})`,
      ).toHaveLength(1)
      for (const row of await goalRows(ws.dir))
        expect(statusOfDocument(ws.dir, row.goalPath), `round ${round}: ${row.goalPath}'s document`).toBe(row.state.split(".")[0])
    }
  }, 180_000)
})
