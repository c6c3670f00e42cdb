import { type ChildProcess, execFile, spawn } from "node:child_process"
import { existsSync, lstatSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import path from "node:path"
import { beforeEach, describe, expect, it } from "vitest"
import { START_TOLERANCE_MS } from "../../../adapters/process/job.hosts"
import { JOB_ID_VAR } from "../../../adapters/process/job.markers"
import { isAlive, pidsWithEnv, readProcess } from "../../../adapters/process/proc.table"
import { SqliteDriverClaimStore } from "../../../adapters/storage/driver.claim.repository"
import type { LifecycleStore } from "../../../adapters/storage/lifecycle.store"
import type { JobSupervisor } from "../../../services/job/job.service"
import { defined } from "../../defined"
import { tempDir } from "../../temp.dir"
import { jobIdOf, otherHost, supervisorWorld, until } from "../jobs/job.supervisor.helpers"

// `forgecharts jobs` on a workspace whose survive jobs ran through the real job supervisor (real processes, real logs,
// the workspace's real database), the CLI spawned as a user runs it. An opencode process that "ended" is a child
// process standing in for it, killed; its supervisor stops recording at that moment, as a dead process would.

const ROOT = path.resolve(import.meta.dirname, "../../..")

interface Run {
  status: number | null
  stdout: string
  stderr: string
}

/** The CLI, without blocking this process's event loop (its supervisor keeps watching its jobs meanwhile). */
function cli(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      path.join(ROOT, "node_modules/.bin/tsx"),
      [path.join(ROOT, "src/cli.ts"), ...args],
      { encoding: "utf8", timeout: 60_000 },
      (error, stdout, stderr) => resolve({ status: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr }),
    )
  })
}

async function cliJson(...args: string[]): Promise<{ run: Run; json: Record<string, unknown> & { jobs?: JobJson[] } }> {
  const run = await cli(...args, "--json")
  return { run, json: run.stdout === "" ? {} : JSON.parse(run.stdout) }
}

interface JobJson {
  id: string
  state: string
  final: boolean
  pid: number | null
  alive: boolean
  host: { pid: number; alive: boolean }
  exitCode: number | null
  log: { path: string; bytes: number | null }
}

/** A process that is not any job's, leading its own process group (as a pid's next owner may). */
async function stranger(): Promise<{ child: ChildProcess; pid: number }> {
  const child = spawn("sleep", ["60"], { stdio: "ignore", detached: true })
  const pid = defined(child.pid, "the stranger's pid")
  await expect.poll(() => readProcess(pid)).not.toBeNull()
  return { child, pid }
}

// Each test runs the CLI several times over (a second or more each under load).
describe("forgecharts jobs", { timeout: 90_000 }, () => {
  const world = supervisorWorld()
  const { request, newSupervisor, recorded } = world
  let dir: string
  let store: LifecycleStore
  beforeEach(() => {
    ;({ dir, store } = world.current())
  })

  /** A supervisor of an opencode process that ends once `start` ran: what it recorded until then stays. */
  async function endedHost(start: (supervisor: JobSupervisor) => Promise<void>): Promise<void> {
    const other = await otherHost()
    let silenced = false
    const supervisor = newSupervisor({ host: other.host, silenced: () => silenced })
    try {
      await start(supervisor)
      await recorded(supervisor)
    } finally {
      silenced = true
      await supervisor.dispose()
      await other.kill()
    }
  }

  const pidOf = (supervisor: JobSupervisor, id: string) => Number(new RegExp(`${id} \\[[^\\]]*\\] pid (\\d+)`).exec(supervisor.list())?.[1])
  const transitionsOf = async (id: string) =>
    (await store.repository.listTransitions({ machineId: "job", instanceId: id })).map((t) => `${t.from}|${t.event}|${t.to}`)

  it("lists the survive jobs with their process, opencode process, exit code and log; --kill takes the whole tree down and records the kill", async () => {
    let running = ""
    let finished = ""
    let plain = ""
    let pid = 0
    await endedHost(async (supervisor) => {
      running = jobIdOf(await supervisor.run("s1", request({ command: "echo up; sleep 60 & sleep 60", survive: true, run_in_background: true })))
      pid = pidOf(supervisor, running)
      finished = jobIdOf(await supervisor.run("s1", request({ command: "echo done; exit 3", survive: true })))
      plain = jobIdOf(await supervisor.run("s1", request({ command: "echo plain" })))
    })
    await until(() => pidsWithEnv(JOB_ID_VAR, running).length >= 2)
    const tree = pidsWithEnv(JOB_ID_VAR, running)

    const { run, json } = await cliJson("jobs", dir)
    expect(run.status, run.stderr).toBe(0)
    expect(json.jobs?.map((j) => j.id)).toEqual([running, finished].sort())
    const byId = new Map(json.jobs?.map((j) => [j.id, j]))
    expect(byId.get(running)).toMatchObject({ state: "earlyReturned", final: false, pid, alive: true, exitCode: null, host: { alive: false } })
    expect(byId.get(finished)).toMatchObject({ state: "cleared", final: true, alive: false, exitCode: 3, log: { bytes: 5 } })
    expect(readFileSync(defined(byId.get(finished), "the finished job").log.path, "utf8")).toBe("done\n")
    const text = await cli("jobs", dir)
    expect(text.stdout).toContain(`${running}\tearlyReturned\tpid ${pid} runs\topencode `)
    expect(text.stdout).toMatch(
      new RegExp(
        `${finished}\\tcleared \\(final\\)\\tpid \\d+ ended\\topencode \\d+ ended\\texit code 3\\tlog .*${finished}\\.log \\(5 bytes\\)\\t\`echo done; exit 3\``,
      ),
    )

    const unknown = await cli("jobs", dir, "--kill", "job_nope")
    expect(unknown.status).toBe(1)
    expect(unknown.stderr).toBe(`forgecharts jobs: unknown job job_nope; the survive jobs here: ${[running, finished].sort().join(", ")}\n`)
    expect((await cli("jobs", dir, "--kill", plain)).stderr).toMatch(new RegExp(`^forgecharts jobs: job ${plain} is not a survive job`))

    const killed = await cliJson("jobs", dir, "--kill", running)
    expect(killed.run.status, killed.run.stderr).toBe(0)
    expect(killed.json).toMatchObject({ id: running, survivors: [], recorded: "killed" })
    expect(killed.json.killed).toEqual(expect.arrayContaining(tree))
    for (const gone of tree) expect(isAlive(gone), `pid ${gone}`).toBe(false)
    expect((await transitionsOf(running)).at(-1)).toBe("earlyReturned|job.kill|killed")
    expect((await store.repository.getSnapshot("job", running))?.terminal).toBe(true)

    const again = await cliJson("jobs", dir, "--kill", running)
    expect(again.run.status).toBe(0)
    expect(again.json).toMatchObject({ killed: [], recorded: null, note: `job ${running} no longer runs: nothing to kill` })
  })

  it("kills a job its opencode process still runs and leaves the record to that process, which records the end", async () => {
    const { supervisor } = world.current()
    const id = jobIdOf(await supervisor.run("s1", request({ command: "sleep 60", survive: true, run_in_background: true })))
    const pid = pidOf(supervisor, id)
    const killed = await cliJson("jobs", dir, "--kill", id)
    expect(killed.run.status, killed.run.stderr).toBe(0)
    expect(killed.json).toMatchObject({
      killed: expect.arrayContaining([pid]),
      recorded: null,
      // The job machine's driver gate: the job's live opencode process (this one) drives it.
      note: expect.stringContaining(`job driver gate: job ${id} is driven by another opencode process (${process.pid}:`),
    })
    expect(isAlive(pid)).toBe(false)
    await expect.poll(() => supervisor.list(), { timeout: 15_000 }).toMatch(new RegExp(`${id} \\[exited`))
    await recorded(supervisor)
    const log = await transitionsOf(id)
    expect(
      log.some((t) => t.includes("job.kill")),
      log.join("\n"),
    ).toBe(false)
    expect(log.at(-1)).toMatch(/^earlyReturned\|job\.exit\|exited\./)
    // Its result is owed to its session in the process that drives it: --clear leaves the record to that process too.
    const cleared = await cliJson("jobs", dir, "--clear")
    expect(cleared.json).toMatchObject({ removed: [], kept: [{ id, reason: expect.stringContaining("job driver gate") }] })
    expect((await store.repository.getSnapshot("job", id))?.state).toMatch(/^exited\./)
  })

  it("never signals a process whose pid the job's shell held: one that now owns the pid is left alone", async () => {
    let ended = ""
    let leftover = ""
    await endedHost(async (supervisor) => {
      ended = jobIdOf(await supervisor.run("s1", request({ command: "true", survive: true, run_in_background: true })))
      leftover = jobIdOf(await supervisor.run("s1", request({ command: "sleep 60 & exit 0", survive: true, run_in_background: true })))
      // Both shells have exited (what the second left behind still runs).
      await expect.poll(() => supervisor.list(), { timeout: 15_000 }).toMatch(new RegExp(`${ended} \\[exited[^]*${leftover} \\[exited`))
    })
    const left = pidsWithEnv(JOB_ID_VAR, leftover)
    expect(left).toHaveLength(1)
    const before = (await store.repository.getSnapshot("job", leftover))?.state
    // The kernel hands a shell's pid to a new process (started later than the tolerance of a start time): the records
    // now name the stranger's pid, and their start time is not its.
    await new Promise((resolve) => setTimeout(resolve, START_TOLERANCE_MS + 200))
    const other = await stranger()
    try {
      for (const id of [ended, leftover]) {
        const record = defined(await store.repository.getSnapshot("job", id), `job ${id}'s record`)
        const snapshot = record.snapshot as { context: { pid: number } }
        await store.repository.saveSnapshot({ ...record, snapshot: { ...snapshot, context: { ...snapshot.context, pid: other.pid } } })
      }
      const quiet = await cliJson("jobs", dir, "--kill", ended)
      expect(quiet.run.status, quiet.run.stderr).toBe(0)
      expect(quiet.json).toMatchObject({ killed: [], recorded: null })
      const refused = await cli("jobs", dir, "--kill", leftover)
      expect(refused.status).toBe(1)
      expect(refused.stderr).toContain(
        `now belongs to another process, whose process group Forge will not signal; kill what the job left running by hand: pids ${left[0]}`,
      )
      expect(isAlive(other.pid)).toBe(true)
      expect(isAlive(defined(left[0], "the leftover"))).toBe(true)
      expect((await store.repository.getSnapshot("job", leftover))?.state).toBe(before)
    } finally {
      other.child.kill("SIGKILL")
      for (const pid of left) process.kill(pid, "SIGKILL")
    }
  })

  it("--clear removes what finished jobs left, never a running job's, never a file Forge did not write", async () => {
    let done = ""
    let owed = ""
    let linked = ""
    let running = ""
    await endedHost(async (supervisor) => {
      done = jobIdOf(await supervisor.run("s1", request({ command: "echo one", survive: true })))
      linked = jobIdOf(await supervisor.run("s1", request({ command: "echo two", survive: true })))
      owed = jobIdOf(await supervisor.run("s1", request({ command: "echo three", survive: true, run_in_background: true })))
      running = jobIdOf(await supervisor.run("s1", request({ command: "sleep 60", survive: true, run_in_background: true })))
      // A background job's end is owed to its session: an exited record the next opencode start would deliver.
      await expect.poll(() => supervisor.list(), { timeout: 15_000 }).toMatch(new RegExp(`${owed} \\[exited`))
    })
    const logOf = (id: string) => path.join(dir, "logs", `${id}.log`)
    const precious = path.join(tempDir("forge-cli-jobs-precious-"), "notes.txt")
    writeFileSync(precious, "mine\n")
    rmSync(logOf(linked))
    symlinkSync(precious, logOf(linked))
    expect(existsSync(path.join(dir, "logs", `${done}.exit`))).toBe(true)
    // Driver claims an ended process left (no pid is above the kernel's 2^22 ceiling): one on a job cleared, one on a job kept.
    const claims = new SqliteDriverClaimStore(store.connection)
    const ended = { holder: `${2 ** 22 + 1}:1`, until: Date.now() + 10_000 }
    for (const id of [done, linked]) await claims.take("job", id, () => ended)

    const cleared = await cliJson("jobs", dir, "--clear")
    expect(cleared.run.status, cleared.run.stderr).toBe(0)
    const removed = cleared.json.removed as { id: string; files: string[]; record: boolean }[]
    expect(removed.map((r) => r.id).sort()).toEqual([done, owed].sort())
    expect(removed.find((r) => r.id === done)).toEqual({ id: done, files: [logOf(done), path.join(dir, "logs", `${done}.exit`)], record: true })
    const kept = new Map((cleared.json.kept as { id: string; reason: string }[]).map((k) => [k.id, k.reason]))
    expect(kept.get(running)).toMatch(/^it still runs \(pid \d+\): forgecharts jobs --kill /)
    expect(kept.get(linked)).toMatch(/is not a plain file \(a link, or something else Forge did not write\); its record stays/)
    for (const id of [done, owed]) {
      expect(existsSync(logOf(id)), id).toBe(false)
      expect(await store.repository.getSnapshot("job", id)).toBeUndefined()
      expect(await transitionsOf(id)).toEqual([])
    }
    expect(await claims.read("job", done)).toBeNull()
    expect(await claims.read("job", linked)).toEqual(ended)
    expect(readFileSync(precious, "utf8")).toBe("mine\n")
    expect(lstatSync(logOf(linked)).isSymbolicLink()).toBe(true)
    expect(existsSync(logOf(running))).toBe(true)
    expect((await store.repository.getSnapshot("job", running))?.state).toBe("earlyReturned")

    // Once killed, the running job is finished too, and the next clear takes what it left.
    expect((await cli("jobs", dir, "--kill", running)).status).toBe(0)
    const next = await cli("jobs", dir, "--clear")
    expect(next.stdout).toContain(`removed job ${running}: ${logOf(running)}`)
    expect(await store.repository.getSnapshot("job", running)).toBeUndefined()
  })

  it("--help, --json on a workspace Forge never ran in, and usage errors", async () => {
    const help = await cli("jobs", "--help")
    expect(help.stdout).toMatch(/^usage: forgecharts jobs \[workspace\] \[--kill ID \| --clear\] \[--json\]/)
    const empty = tempDir("forge-cli-jobs-empty-")
    expect((await cliJson("jobs", empty)).json).toEqual({ workspace: empty, database: null, jobs: [], damaged: [] })
    expect(existsSync(path.join(empty, ".opencode"))).toBe(false)
    const both = await cli("jobs", empty, "--kill", "job_x", "--clear")
    expect(both.status).toBe(2)
    expect(both.stderr).toMatch(/^forgecharts jobs: --kill and --clear together: give one/)
    const elsewhere = await cli("status", empty, "--clear")
    expect(elsewhere.status).toBe(2)
    expect(elsewhere.stderr).toMatch(/^forgecharts status: --kill and --clear belong to jobs/)
  })
})
