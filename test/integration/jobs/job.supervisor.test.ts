import path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { tempDir } from "../../temp.dir"
import { spawn } from "node:child_process"
import { currentHost, releaseHost } from "../../../adapters/process/job.hosts"
import { createJobProcesses } from "../../../adapters/process/job.processes"
import { isAlive, readProcess } from "../../../adapters/process/proc.table"
import type { JobHost } from "../../../machines/job.machine"
import { FsJobLogs } from "../../../adapters/workspace/job.logs"
import { type ShellArgs, toShellRequest } from "../../../services/jobs/job.request"
import { type LifecycleStore, openLifecycleStore } from "../../../adapters/storage/lifecycle.store"
import { createKeyValueStorage } from "../../../adapters/storage/keyvalue.storage"
import { SqliteLedgerStore } from "../../../adapters/storage/ledger.repository"
import { LifecycleHost } from "../../../services/lifecycle/lifecycle.host"
import { JobLedger } from "../../../services/jobs/job.ledger"
import { JOB_REGISTRY_NAME, JobRegistry } from "../../../services/jobs/job.registry"
import { hostScopedName } from "../../../services/jobs/job.stores"
import { JobSupervisor } from "../../../services/jobs/job.supervisor"
import { systemTimers } from "../../../src/jobs"
import { memoryLogger } from "../plan/plan.helpers"
import { killToken, processesWithToken, leftoversCommand } from "../../fixtures/process/hostile.tree"
import { defined } from "../../defined"

/** Waits (generously: the machine may be loaded) until `done` holds. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !done(); i++) await new Promise((r) => setTimeout(r, 100))
}

// The supervisor over real processes, real log files and real timers. Only the wake channel (opencode's
// promptAsync) is recorded instead of sent.

describe("job supervisor with real processes", () => {
  let dir: string
  let wakes: { session: string; text: string }[]
  let supervisor: JobSupervisor
  let seq = 0
  const request = (args: ShellArgs) => toShellRequest(args, { cwd: dir, survive: "never" }, (cwd) => path.resolve(dir, cwd))
  const jobIdOf = (result: string) => /job: (\S+)/.exec(result)?.[1] ?? ""

  let store: LifecycleStore
  let ledger: JobLedger
  const clock = { now: () => Date.now() }
  const host = currentHost()
  /** A host whose records stop when `silenced` says so: what a host that died leaves behind. */
  const newSupervisor = (
    options: {
      host?: JobHost
      ledger?: JobLedger
      silenced?: () => boolean
      sessionIsIdle?: (id: string) => Promise<boolean>
      /** Stands in for the host's processes port: lets a test break one of its steps. */
      processes?: (real: ReturnType<typeof createJobProcesses>) => ReturnType<typeof createJobProcesses>
    } = {},
  ) => {
    const real = createJobProcesses({ growthPollMs: 20, killGraceMs: 500 })
    const processes = options.processes?.(real) ?? real
    const lifecycles = new LifecycleHost({ repository: async () => (options.silenced?.() ? undefined : store.repository), clock, log: memoryLogger() })
    const supervisor = new JobSupervisor({
      processes,
      logs: new FsJobLogs(path.join(dir, "logs")),
      clock,
      timers: systemTimers,
      log: memoryLogger(),
      wake: async (session, text) => void wakes.push({ session, text }),
      newJobId: () => `job_test_${process.pid}_${++seq}`,
      lifecycles: lifecycles,
      ledger: options.ledger ?? ledger,
      registry: new JobRegistry(options.host ?? host, createKeyValueStorage(store.connection)),
      host: options.host ?? host,
      sessionIsIdle: options.sessionIsIdle,
    })
    hosts.set(supervisor, lifecycles)
    return supervisor
  }
  const hosts = new WeakMap<JobSupervisor, LifecycleHost>()
  /** Until what the supervisor has recorded so far is written: a host silenced before that would leave less behind. */
  const recorded = (of: JobSupervisor) => hosts.get(of)?.idle()

  beforeEach(async () => {
    dir = tempDir("forge-jobs-")
    store = await openLifecycleStore(dir)
    ledger = new JobLedger(new SqliteLedgerStore(store.connection))
    wakes = []
    supervisor = newSupervisor()
  })
  afterEach(async () => {
    await supervisor.dispose()
    await store.close()
  })

  it("a foreground exit returns cwd, the exit code and the output, and consumes the job", async () => {
    const result = await supervisor.run("s1", request({ command: "echo hello; echo oops >&2; exit 3" }))
    expect(result).toContain(`cwd: ${dir}`)
    expect(result).toContain("status: exited with exit code 3")
    expect(result).toMatch(/hello\noops/)
    const id = jobIdOf(result)
    expect(await supervisor.poll(id)).toMatch(/already consumed/)
    expect(supervisor.list("s1")).toBe("no jobs")
  })

  it("reports a command that ran with its exit code even when reading its output afterwards fails (EBADF), naming the trouble", async () => {
    const ebadf = () => Object.assign(new Error("EBADF: bad file descriptor, read"), { code: "EBADF" })
    const broken = newSupervisor({
      processes: (real) => ({ ...real, readTail: async () => Promise.reject(ebadf()), sizeOf: async () => Promise.reject(ebadf()) }),
    })
    try {
      const result = await broken.run("s1", request({ command: "echo ran > marker.txt; exit 4" }))
      expect(result).toContain("status: exited with exit code 4")
      expect(result).toContain("The command ran, but its output could not be read afterwards (EBADF: bad file descriptor, read)")
      expect(result).toMatch(/forge_jobs log/)
    } finally {
      await broken.dispose()
    }
  })

  it("returns on the exit even while a detached grandchild holds the output open", async () => {
    const started = Date.now()
    const result = await supervisor.run("s1", request({ command: "sleep 30 & echo started" }))
    // The grandchild sleeps 30 s holding the output: returning long before that is the point.
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(result).toContain("status: exited with exit code 0")
    expect(result).toContain("started")
  })

  it("idle output releases the caller with the job still running; its later exit wakes the idle session exactly once", async () => {
    const result = await supervisor.run("s1", request({ command: "echo working; sleep 1; echo done", idle_ms: 300 }))
    expect(result).toMatch(/status: still running \(no new output for 300 ms\)/)
    const id = jobIdOf(result)
    supervisor.sessionStatus("s1", "idle")
    await expect.poll(() => wakes.length, { timeout: 5_000 }).toBe(1)
    expect(wakes[0]).toMatchObject({ session: "s1" })
    expect(wakes[0]?.text).toMatch(new RegExp(`^\\[forge:job-complete\\] Job ${id} finished: exited with exit code 0`))
    expect(wakes[0]?.text).toContain("done")
    supervisor.sessionStatus("s1", "busy")
    supervisor.sessionStatus("s1", "idle")
    await new Promise((r) => setTimeout(r, 200))
    expect(wakes).toHaveLength(1)
    expect(supervisor.list("s1")).toContain(id)
    expect(await supervisor.poll(id)).toContain("exited with exit code 0")
    expect(supervisor.list("s1")).toBe("no jobs")
  })

  it("a terminal poll before the session goes idle consumes the completion: no wake at all", async () => {
    const result = await supervisor.run("s1", request({ command: "sleep 0.3; echo fin", run_in_background: true }))
    expect(result).toContain("started in the background")
    const id = jobIdOf(result)
    const polled = await supervisor.poll(id, 5_000)
    const final = polled.includes("exited") ? polled : await supervisor.poll(id, 5_000)
    expect(final).toContain("exited with exit code 0")
    supervisor.sessionStatus("s1", "idle")
    await new Promise((r) => setTimeout(r, 200))
    expect(wakes).toEqual([])
    expect(await supervisor.poll(id)).toMatch(/already consumed/)
  })

  it("a success pattern completes the call; keep_alive false kills the tree", async () => {
    const kept = await supervisor.run(
      "s1",
      request({ command: "echo booting; sleep 0.2; echo 'listening on 8080'; sleep 30", success_pattern: "listening on \\d+" }),
    )
    expect(kept).toContain("status: success pattern matched; still running")
    const keptId = jobIdOf(kept)
    expect(await supervisor.kill(keptId)).toContain("killed its whole process tree")
    const killed = await supervisor.run("s1", request({ command: "echo ready; sleep 30", success_pattern: "ready", keep_alive: false }))
    expect(killed).toContain("keep_alive is false: the process tree was killed after the match")
    expect(killed).toContain("status: killed (whole process tree)")
  })

  it("a kill after the shell exited takes down what it left running, environment cleared or not, and delivers the exit", async () => {
    const token = `forge-left-${process.pid}-${++seq}`
    const command = leftoversCommand(token, 4)
    try {
      const id = jobIdOf(await supervisor.run("s1", request({ command, run_in_background: true })))
      const ended = async (): Promise<string> => {
        for (let i = 0; i < 100; i++) {
          const listed = supervisor.list("s1")
          if (listed.includes("exited")) return listed
          await new Promise((r) => setTimeout(r, 100))
        }
        return supervisor.list("s1")
      }
      expect(await ended()).toContain("exited")
      await until(() => processesWithToken(token).length === 2)
      expect(processesWithToken(token)).toHaveLength(2)
      const reply = await supervisor.kill(id)
      expect(reply).toContain("it had already exited with exit code 4; killed whatever it left running")
      await until(() => processesWithToken(token).length === 0)
      expect(processesWithToken(token)).toEqual([])
      expect(await supervisor.poll(id)).toMatch(/already consumed/)
    } finally {
      killToken(token)
    }
  })

  it("max_wait releases the caller but never kills", async () => {
    const result = await supervisor.run("s1", request({ command: "while true; do echo tick; sleep 0.05; done", max_wait_ms: 400, idle_ms: 60_000 }))
    expect(result).toContain("waited the 400 ms maximum; the process was not killed")
    const id = jobIdOf(result)
    expect(supervisor.list("s1")).toMatch(new RegExp(`${id} \\[earlyReturned\\]`))
    const poll = await supervisor.poll(id, 500)
    expect(poll).toContain("tick")
    expect(poll).toContain("still running")
    expect(await supervisor.kill(id)).toContain("killed")
  })

  it("log pages the output by line", async () => {
    const result = await supervisor.run("s1", request({ command: "for i in 1 2 3 4 5; do echo line$i; done; sleep 2", idle_ms: 300 }))
    const id = jobIdOf(result)
    expect(await supervisor.logLines(id, 2, 2)).toBe("2: line2\n3: line3\n(lines 2-3 of 5; next offset 4)")
    await supervisor.kill(id)
  })

  it("a deleted session's live jobs die with it", async () => {
    const result = await supervisor.run("s9", request({ command: "sleep 30", run_in_background: true }))
    const pid = Number(/pid (\d+)/.exec(supervisor.list("s9"))?.[1])
    expect(isAlive(pid)).toBe(true)
    await supervisor.sessionDeleted("s9")
    expect(isAlive(pid)).toBe(false)
    expect(await ledger.entries()).toEqual([expect.objectContaining({ kind: "session-deleted", jobId: jobIdOf(result), sessionId: "s9" })])
    expect(await supervisor.poll(jobIdOf(result))).toMatch(/already consumed/)
  })

  it("bad requests get clear errors and start nothing", async () => {
    // A bad pattern is refused with the arguments: before the permission dialog, before anything starts.
    expect(() => request({ command: "echo", success_pattern: "([a-" })).toThrow(/forge_shell: success_pattern "\(\[a-" is not a valid regular expression/)
    expect(() => request({ command: "  " })).toThrow(/forge_shell: command: command is empty/)
    expect(() => toShellRequest({ command: "x", survive: true }, { cwd: dir, survive: "deny" }, (c) => c)).toThrow(/jobs.survive is "deny"/)
    await expect(supervisor.run("s1", request({ command: "echo", cwd: path.join(dir, "nope") }))).rejects.toThrow(/nope/)
    expect(supervisor.list()).toBe("no jobs")
  })

  it("records every job transition in the shared lifecycle tables", async () => {
    const id = jobIdOf(await supervisor.run("s1", request({ command: "echo hi" })))
    await recorded(supervisor)
    const log = await store.repository.listTransitions({ machineId: "job", instanceId: id })
    expect(log.map((t) => `${t.from}|${t.event}|${t.to}`)).toEqual(["(none)|xstate.init|starting", "starting|job.spawned|running", "running|job.exit|cleared"])
    expect((await store.repository.getSnapshot("job", id))?.terminal).toBe(true)
  })

  it("dispose leaves what it recorded in the database: a survive job's registration and its handoff", async () => {
    const id = jobIdOf(await supervisor.run("sub", request({ command: "sleep 30", survive: true, run_in_background: true })))
    const pid = Number(/pid (\d+)/.exec(supervisor.list())?.[1])
    supervisor.handoff(id, "root")
    await supervisor.dispose()
    try {
      // Right after dispose, with no time for a throttled write: the item is already there.
      const item = await createKeyValueStorage(store.connection).getItem(hostScopedName(JOB_REGISTRY_NAME, host))
      expect(JSON.parse(item ?? "null")).toMatchObject({ context: { jobs: { [id]: { owner: "root", survive: true } } } })
      expect(isAlive(pid)).toBe(true)
    } finally {
      process.kill(-pid, "SIGKILL")
    }
  })

  it("a completion the previous host could not deliver wakes its session after the restart, once, asking whether it is idle", async () => {
    const other = await otherHost()
    let silenced = false
    const first = newSupervisor({ host: other.host, silenced: () => silenced })
    const id = jobIdOf(await first.run("s1", request({ command: "sleep 0.2; echo finished", run_in_background: true })))
    // The job ends while its session is busy as far as this host knows: the wake stays pending.
    await expect.poll(async () => (await store.repository.getSnapshot("job", id))?.state, { timeout: 5_000 }).toBe("exited.wakePending")
    silenced = true
    await other.kill()
    const asked: string[] = []
    const next = newSupervisor({
      sessionIsIdle: async (session) => {
        asked.push(session)
        return session === "s1"
      },
    })
    try {
      await next.restore(store.repository)
      await expect.poll(() => wakes.length, { timeout: 5_000 }).toBe(1)
      expect(wakes[0]).toMatchObject({ session: "s1" })
      expect(wakes[0]?.text).toMatch(new RegExp(`^\\[forge:job-complete\\] Job ${id} finished`))
      expect(asked).toEqual(["s1"])
      // Known idle now, from the answer: a later idle event does not deliver it again.
      next.sessionStatus("s1", "idle")
      await new Promise((r) => setTimeout(r, 200))
      expect(wakes).toHaveLength(1)
    } finally {
      await next.dispose()
      await first.dispose()
    }
  })

  /** Another host process of the same workspace, stood in for by a child process that lives until killed. */
  async function otherHost(): Promise<{ host: JobHost; kill(): Promise<void> }> {
    const child = spawn("sleep", ["60"], { stdio: "ignore" })
    const pid = child.pid as number
    await expect.poll(() => readProcess(pid)).not.toBeNull()
    return {
      host: { pid, startedAt: defined(readProcess(pid), `process ${pid} in the process table`).startedAt, instance: "other" },
      async kill() {
        child.kill("SIGKILL")
        await expect.poll(() => isAlive(pid)).toBe(false)
      },
    }
  }

  it("two hosts starting together after their predecessor died adopt each survive job exactly once", async () => {
    const dead = await otherHost()
    const first = newSupervisor({ host: dead.host })
    const ids: string[] = []
    for (let i = 0; i < 6; i++) ids.push(jobIdOf(await first.run("s1", request({ command: "sleep 30", survive: true, run_in_background: true }))))
    await first.dispose()
    await dead.kill()
    const rival = await otherHost()
    const here = newSupervisor()
    const there = newSupervisor({ host: rival.host })
    try {
      const [a, b] = await Promise.all([here.restore(store.repository), there.restore(store.repository)])
      expect([...a.adopted, ...b.adopted].sort()).toEqual([...ids].sort())
      expect(a.adopted.filter((id) => b.adopted.includes(id))).toEqual([])
      // What one adopted, the other left to it: listed by exactly one host.
      expect([...a.elsewhere, ...b.elsewhere].sort()).toEqual([...ids].sort())
      for (const id of ids) {
        const log = await store.repository.listTransitions({ instanceId: id })
        expect(
          log.filter(({ event }) => event === "job.adopt"),
          `${id}: one adoption recorded`,
        ).toHaveLength(1)
        expect(`${here.list()}\n${there.list()}`.split(id).length - 1, `${id}: listed once`).toBe(1)
      }
    } finally {
      for (const id of ids) await (here.list().includes(id) ? here : there).kill(id)
      await here.dispose()
      await there.dispose()
      await rival.kill()
    }
  })

  it("two hosts starting together deliver a dead host's pending wake once", async () => {
    const dead = await otherHost()
    let silenced = false
    const first = newSupervisor({ host: dead.host, silenced: () => silenced })
    const id = jobIdOf(await first.run("s1", request({ command: "sleep 0.2; echo finished", run_in_background: true })))
    await expect.poll(async () => (await store.repository.getSnapshot("job", id))?.state, { timeout: 5_000 }).toBe("exited.wakePending")
    silenced = true
    await dead.kill()
    const rival = await otherHost()
    const idle = { sessionIsIdle: async () => true }
    const here = newSupervisor(idle)
    const there = newSupervisor({ ...idle, host: rival.host })
    try {
      const [a, b] = await Promise.all([here.restore(store.repository), there.restore(store.repository)])
      expect([...a.takenOver, ...b.takenOver]).toEqual([id])
      await expect.poll(() => wakes.length, { timeout: 5_000 }).toBe(1)
      here.sessionStatus("s1", "idle")
      there.sessionStatus("s1", "idle")
      await new Promise((r) => setTimeout(r, 300))
      expect(wakes).toHaveLength(1)
    } finally {
      await here.dispose()
      await there.dispose()
      await first.dispose()
      await rival.kill()
    }
  })

  it("a start while another host of the workspace still runs leaves that host's jobs alone", async () => {
    const other = await otherHost()
    let silenced = false
    const first = newSupervisor({ host: other.host, silenced: () => silenced })
    try {
      const id = jobIdOf(await first.run("s1", request({ command: "sleep 30", run_in_background: true })))
      const pid = Number(/pid (\d+)/.exec(first.list())?.[1])
      await recorded(first)
      const next = newSupervisor()
      const outcome = await next.restore(store.repository)
      expect(outcome).toEqual({ adopted: [], takenOver: [], orphaned: [], elsewhere: [id], problems: [] })
      expect(isAlive(pid)).toBe(true)
      expect(next.list()).toBe("no jobs")
      expect((await store.repository.getSnapshot("job", id))?.state).toBe("earlyReturned")
      await next.dispose()
      expect(isAlive(pid)).toBe(true)
    } finally {
      silenced = true
      await first.dispose()
      await other.kill()
    }
  })

  it("a second plugin instance of the same process on the workspace leaves the first one's jobs alone", async () => {
    const id = jobIdOf(await supervisor.run("s1", request({ command: "sleep 30", run_in_background: true })))
    const pid = Number(/pid (\d+)/.exec(supervisor.list())?.[1])
    const sibling = newSupervisor({ host: currentHost() })
    try {
      expect(await sibling.restore(store.repository)).toEqual({ adopted: [], takenOver: [], orphaned: [], elsewhere: [id], problems: [] })
      expect(isAlive(pid)).toBe(true)
      expect(sibling.list()).toBe("no jobs")
    } finally {
      await sibling.dispose()
    }
    expect(isAlive(pid)).toBe(true)
    await supervisor.kill(id)
  })

  it("the next plugin instance of the same process takes over what a released (disposed) instance left", async () => {
    const first = currentHost()
    const firstSupervisor = newSupervisor({ host: first })
    const id = jobIdOf(await firstSupervisor.run("s1", request({ command: "sleep 30", survive: true, run_in_background: true })))
    const pid = Number(/pid (\d+)/.exec(firstSupervisor.list())?.[1])
    await firstSupervisor.dispose()
    releaseHost(first)
    const next = newSupervisor({ host: currentHost() })
    try {
      expect(await next.restore(store.repository)).toEqual({ adopted: [id], takenOver: [], orphaned: [], elsewhere: [], problems: [] })
      expect(next.list()).toMatch(new RegExp(`${id} \\[earlyReturned, previous-run\\]`))
    } finally {
      await next.kill(id)
      await next.dispose()
    }
    expect(isAlive(pid)).toBe(false)
  })

  it("an adopted survive job's exit code is known: its shim kept the shell's status beside the log", async () => {
    const first = currentHost()
    const firstSupervisor = newSupervisor({ host: first })
    const id = jobIdOf(await firstSupervisor.run("s1", request({ command: "sleep 2; exit 7", survive: true, run_in_background: true })))
    await firstSupervisor.dispose()
    releaseHost(first)
    const next = newSupervisor({ host: currentHost() })
    try {
      expect((await next.restore(store.repository)).adopted).toEqual([id])
      // This host's own view (the first instance of this process still hears the exit from its pipe and records it too).
      await expect.poll(() => next.list(), { timeout: 15_000 }).toMatch(new RegExp(`${id} \\[exited`))
      expect(await next.poll(id)).toContain("exited with exit code 7")
    } finally {
      await next.dispose()
    }
  })

  it("a survive job that ended while no host ran is adopted with the status its shim kept, and wakes its session once", async () => {
    const other = await otherHost()
    let silenced = false
    const first = newSupervisor({ host: other.host, silenced: () => silenced })
    const id = jobIdOf(await first.run("s1", request({ command: "sleep 0.3; exit 7", survive: true, run_in_background: true })))
    await recorded(first)
    // The host dies first, its records stopping where they are; the job then ends with nobody watching.
    silenced = true
    await other.kill()
    await expect
      .poll(() => /pid (\d+)/.exec(first.list())?.[1] !== undefined && !isAlive(Number(/pid (\d+)/.exec(first.list())?.[1])), { timeout: 5_000 })
      .toBe(true)
    // Restored as soon as the shell is gone: its shim has kept its status by then, or is about to (the watch waits).
    const next = newSupervisor({ sessionIsIdle: async () => true })
    try {
      const outcome = await next.restore(store.repository)
      expect(outcome.adopted, JSON.stringify(outcome)).toEqual([id])
      expect(outcome.orphaned).toEqual([])
      await expect.poll(() => wakes.length, { timeout: 5_000 }).toBe(1)
      expect(wakes[0]?.text).toMatch(new RegExp(`^\\[forge:job-complete\\] Job ${id} finished: exited with exit code 7`))
      await expect
        .poll(async () => (await store.repository.listTransitions({ instanceId: id })).map((t) => t.event))
        .toEqual(["xstate.init", "job.spawned", "job.adopt", "job.exit", "job.wake.delivered"])
    } finally {
      await next.dispose()
      await first.dispose()
    }
  })

  it("the next host takes over from a host that is gone: survive job adopted with its owner, escaped job orphaned, results remembered", async () => {
    const other = await otherHost()
    let silenced = false
    const firstLedger = new JobLedger(new SqliteLedgerStore(store.connection))
    const first = newSupervisor({ host: other.host, ledger: firstLedger, silenced: () => silenced })
    const survivor = jobIdOf(await first.run("sub", request({ command: "sleep 30", survive: true, run_in_background: true })))
    expect(first.handoff(survivor, "root")).toContain("now belongs to session root")
    const escaped = jobIdOf(await first.run("s1", request({ command: "sleep 30", run_in_background: true })))
    const escapedPid = Number(new RegExp(`${escaped} \\[earlyReturned\\] pid (\\d+)`).exec(first.list())?.[1])
    const consumed = jobIdOf(await first.run("s1", request({ command: "echo done" })))
    const gone = jobIdOf(await first.run("s1", request({ command: "sleep 30", run_in_background: true })))
    await first.kill(gone)
    await first.sessionDeleted("nobody")
    firstLedger.append({ at: clock.now(), kind: "kill-survivors", jobId: gone, sessionId: "s1", command: "sleep 30", message: "the first host's last words" })
    await firstLedger.flush()
    await recorded(first)
    // The first host dies without a word: its records stop here. (Its jobs are children of this test process, so
    // its fenced job outlives it: an escapee, as when a fence failed.)
    silenced = true
    await other.kill()
    const next = newSupervisor()
    try {
      const outcome = await next.restore(store.repository)
      expect(outcome).toEqual({ adopted: [survivor], takenOver: [], orphaned: [escaped], elsewhere: [], problems: [] })
      expect(isAlive(escapedPid)).toBe(false)
      const entries = await ledger.entries()
      expect(entries.map((e) => `${e.kind} ${e.jobId}`)).toEqual([`kill-survivors ${gone}`, `adopted ${survivor}`, `orphaned ${escaped}`])
      expect(entries.at(-1)?.message).toMatch(/escaped its fence and was killed/)
      // The handoff outlived the host: the adopted job is the root session's, and the host it runs under is this one.
      expect(next.list("root")).toMatch(new RegExp(`${survivor} \\[earlyReturned, previous-run\\]`))
      expect(next.list("sub")).toBe("no jobs")
      await expect.poll(async () => (await store.repository.getSnapshot("job", survivor))?.snapshot).toMatchObject({ context: { host, previousRun: true } })
      expect(await next.poll(consumed)).toMatch(/already consumed/)
      expect(await next.poll(escaped)).toMatch(/already consumed/)
      // The adopted job is watched: once it is killed its end is seen and its record turns final.
      expect(await next.kill(survivor)).toContain("killed its whole process tree")
      await recorded(next)
      expect((await store.repository.getSnapshot("job", survivor))?.state).toBe("killed")
      expect((await store.repository.getSnapshot("job", escaped))?.state).toBe("orphaned")
      // One row per change of state: the restore itself is none.
      const events = (await store.repository.listTransitions({ machineId: "job", instanceId: survivor })).map((t) => t.event)
      expect(events).toEqual(["xstate.init", "job.spawned", "job.adopt", "job.kill"])
    } finally {
      await next.dispose()
      await first.dispose()
    }
  })
})
