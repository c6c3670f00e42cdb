// A job's run on one host, over real processes, log files and timers: what the call returns and when, the wake of a
// session, kills, the log and requests refused. Only the wake is recorded instead of sent (job.supervisor.helpers.ts).
import { readdirSync } from "node:fs"
import path from "node:path"
import { beforeEach, describe, expect, it } from "vitest"
import { createJobTools } from "../../../adapters/opencode/job/job.tools"
import { isAlive } from "../../../adapters/process/proc.table"
import { defaultForgeOptions } from "../../../services/config/forge.options"
import type { JobLedger } from "../../../services/job/job.ledger"
import { toShellRequest } from "../../../services/job/job.request"
import type { JobSupervisor } from "../../../services/job/job.service"
import { killToken, leftoversCommand, leftoversSettled, processesWithToken } from "../../fixtures/process/hostile.tree"
import { callRaw, toolContext } from "../opencode/tool.context"
import { jobIdOf, supervisorWorld, until } from "./job.supervisor.helpers"

describe("job supervisor with real processes", () => {
  const world = supervisorWorld()
  const { request, newSupervisor, recorded } = world
  let dir: string
  let wakes: { session: string; text: string }[]
  let supervisor: JobSupervisor
  let ledger: JobLedger
  /** Numbers the process tokens of this file's tests. */
  let seq = 0
  // The running test's world (set up by supervisorWorld's beforeEach, which runs first), under the names the tests use.
  beforeEach(() => {
    ;({ dir, wakes, supervisor, ledger } = world.current())
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
      await until(() => leftoversSettled(token))
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

  it("the survivor cap refuses a survive job at its birth, in forge_shell's answer, and leaves nothing of it behind", async () => {
    const capped = newSupervisor({ maxSurvivors: 1 })
    const tools = createJobTools({
      options: defaultForgeOptions,
      supervisor: async () => capped,
      rootOf: async (id) => id,
      sandboxOf: async () => null,
      shellFamily: "POSIX sh",
    })
    const shell = (raw: unknown) => callRaw(tools.forge_shell, raw, toolContext("s1", dir))
    const { store } = world.current()
    const survivor = jobIdOf(await capped.run("s1", request({ command: "sleep 30", run_in_background: true, survive: true })))
    try {
      const logs = () => readdirSync(path.join(dir, "logs")).sort()
      const rows = async () => {
        await recorded(capped)
        return (await store.repository.loadSnapshots({ machineId: "job" })).map((r) => r.instanceId).sort()
      }
      const [logsBefore, rowsBefore] = [logs(), await rows()]
      // What the model sees: the machine's words, naming the cap and the way past it.
      await expect(shell({ command: "echo never", survive: true })).rejects.toMatchObject({
        name: "GateRefusal",
        message: "forge_shell: 1 survive job is already running (survivor cap: 1); stop some (forge_jobs kill) before starting another that outlives the host.",
      })
      expect(capped.list()).toMatch(new RegExp(`^- ${survivor} \\[earlyReturned\\]`))
      expect(logs(), "no log written or rotated away").toEqual(logsBefore)
      expect(await rows(), "no record").toEqual(rowsBefore)
      // A job that dies with its host is no survivor: the cap leaves it alone.
      expect(await shell({ command: "echo fine" })).toContain("status: exited with exit code 0")
      // The way past it: a survivor killed, the next one starts.
      await capped.kill(survivor)
      const next = jobIdOf(await capped.run("s1", request({ command: "sleep 30", run_in_background: true, survive: true })))
      expect(await capped.kill(next)).toMatch(/killed/)
    } finally {
      await capped.kill(survivor)
      await capped.dispose()
    }
  })

  it("bad requests get clear errors and start nothing", async () => {
    // A bad pattern is refused with the arguments: before the permission dialog, before anything starts.
    expect(() => request({ command: "echo", success_pattern: "([a-" })).toThrow(/forge_shell: success_pattern "\(\[a-" is not a valid regular expression/)
    expect(() => request({ command: "  " })).toThrow(/forge_shell: command: command is empty/)
    expect(() => toShellRequest({ command: "x", survive: true }, { cwd: dir, survive: "deny" }, (c) => c)).toThrow(/jobs.survive is "deny"/)
    await expect(supervisor.run("s1", request({ command: "echo", cwd: path.join(dir, "nope") }))).rejects.toThrow(/nope/)
    expect(supervisor.list()).toBe("no jobs")
  })
})
