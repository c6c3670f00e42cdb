// Job output seen by the supervisor over real processes, real logs and real timers: a success pattern found after a
// burst of output, a finished job's log paged after its result was delivered (also after a restart), and a pattern
// that ran out of time.
import { spawn } from "node:child_process"
import { rmSync } from "node:fs"
import path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { tempDir } from "../../temp.dir"
import { currentHost } from "../../../adapters/process/job.hosts"
import { createJobProcesses } from "../../../adapters/process/job.processes"
import { isAlive, readProcess } from "../../../adapters/process/proc.table"
import { createKeyValueStorage } from "../../../adapters/storage/keyvalue.storage"
import { SqliteLedgerStore } from "../../../adapters/storage/ledger.repository"
import { type LifecycleStore, openLifecycleStore } from "../../../adapters/storage/lifecycle.store"
import { FsJobLogs } from "../../../adapters/workspace/job.logs"
import type { JobHost } from "../../../machines/job/job.machine"
import { LifecycleHost } from "../../../services/lifecycle/lifecycle.host"
import { JobLedger } from "../../../services/job/job.ledger"
import { JobRegistry } from "../../../services/job/job.registry"
import { type ShellArgs, toShellRequest } from "../../../services/job/job.request"
import { JobSupervisor } from "../../../services/job/job.service"
import { systemTimers } from "../../../src/system"
import { memoryLogger } from "../plan/plan.helpers"
import { defined } from "../../defined"

describe("job output with real processes", () => {
  let dir: string
  let store: LifecycleStore
  let supervisor: JobSupervisor
  let seq = 0
  const clock = { now: () => Date.now() }
  const host = currentHost()
  const request = (args: ShellArgs) => toShellRequest(args, { cwd: dir, survive: "never" }, (cwd) => path.resolve(dir, cwd))
  const jobIdOf = (result: string) => /job: (\S+)/.exec(result)?.[1] ?? ""

  const newSupervisor = (jobHost: JobHost) => {
    const storage = createKeyValueStorage(store.connection)
    // The production poll interval: a burst lands in a few large growth events, as it does in the plugin.
    const processes = createJobProcesses({ killGraceMs: 500 })
    const lifecycles = new LifecycleHost({ repository: async () => store.repository, clock, log: memoryLogger() })
    return new JobSupervisor({
      processes,
      logs: new FsJobLogs(path.join(dir, "logs")),
      clock,
      timers: systemTimers,
      log: memoryLogger(),
      wake: async () => undefined,
      newJobId: () => `job_output_${process.pid}_${++seq}`,
      lifecycles: lifecycles,
      ledger: new JobLedger(new SqliteLedgerStore(store.connection)),
      registry: new JobRegistry(jobHost, storage),
      host: jobHost,
    })
  }

  beforeEach(async () => {
    dir = tempDir("forge-job-output-")
    store = await openLifecycleStore(dir)
    supervisor = newSupervisor(host)
  })
  afterEach(async () => {
    await supervisor.dispose()
    await store.close()
  })

  it.each([2, 5])("finds READY after a %i MB burst of output, with nothing printed after it", async (megabytes) => {
    // The idle wait is the fallback: without the catch-up scan the call would end on it, with READY in the tail.
    const result = await supervisor.run(
      "s1",
      request({
        command: `yes 'burst line of output' | head -c ${megabytes * 1024 * 1024}; echo; echo READY; sleep 30`,
        success_pattern: "^READY$",
        idle_ms: 4_000,
      }),
    )
    expect(result).toContain("status: success pattern matched; still running")
    expect(result).toMatch(/READY\n?$/)
    expect(await supervisor.kill(jobIdOf(result))).toContain("killed its whole process tree")
  })

  it("pages the log of a finished foreground job whose result was already delivered", async () => {
    const result = await supervisor.run("s1", request({ command: "seq 1 5000" }))
    expect(result).toContain("status: exited with exit code 0")
    // 5000 lines are far more than the tail shown: the result says how to see the rest.
    expect(result).not.toMatch(/^1\n/m)
    expect(result).toMatch(/forge_jobs log/)
    const id = jobIdOf(result)
    expect(await supervisor.logLines(id, 1, 3)).toBe("1: 1\n2: 2\n3: 3\n(lines 1-3 of 5000; next offset 4)")
    expect(await supervisor.logLines(id, 4999, 10)).toBe("4999: 4999\n5000: 5000")
    // Only the log outlives the delivered result: the rest still answers as the seed says.
    expect(await supervisor.poll(id)).toMatch(/already consumed/)
    expect(await supervisor.kill(id)).toMatch(/already consumed/)
    expect(supervisor.clear(id)).toMatch(/already consumed/)
    expect(supervisor.list("s1")).toBe("no jobs")
  })

  it("pages the log of a background job after a poll consumed its end", async () => {
    const id = jobIdOf(await supervisor.run("s1", request({ command: "seq 1 50", run_in_background: true })))
    let polled = await supervisor.poll(id, 5_000)
    if (!polled.includes("exited")) polled = await supervisor.poll(id, 5_000)
    expect(polled).toContain("exited with exit code 0")
    expect(await supervisor.poll(id)).toMatch(/already consumed/)
    expect(await supervisor.logLines(id, 49, 5)).toBe("49: 49\n50: 50")
  })

  it("pages a consumed job's log after a restart, from the registry the next host took over", async () => {
    const child = spawn("sleep", ["60"], { stdio: "ignore" })
    const pid = child.pid as number
    await expect.poll(() => readProcess(pid)).not.toBeNull()
    const other = { pid, startedAt: defined(readProcess(pid), `process ${pid} in the process table`).startedAt, instance: "other" }
    const first = newSupervisor(other)
    const id = jobIdOf(await first.run("s1", request({ command: "seq 1 3000" })))
    await first.dispose()
    child.kill("SIGKILL")
    await expect.poll(() => isAlive(pid)).toBe(false)
    const next = newSupervisor(host)
    try {
      await next.restore(store.repository)
      expect(await next.logLines(id, 2999, 5)).toBe("2999: 2999\n3000: 3000")
      expect(await next.poll(id)).toMatch(/already consumed/)
    } finally {
      await next.dispose()
    }
  })

  it("says plainly when a consumed job's log is gone, and still refuses ids that are no job", async () => {
    const id = jobIdOf(await supervisor.run("s1", request({ command: "echo short" })))
    rmSync(path.join(dir, "logs", `${id}.log`))
    expect(await supervisor.logLines(id)).toMatch(new RegExp(`job ${id}: already consumed, and its log is gone`))
    expect(await supervisor.logLines("../../etc/passwd")).toMatch(/unknown job/)
    expect(await supervisor.logLines("job_never_started")).toMatch(/unknown job job_never_started/)
  })

  it("a success pattern that runs out of time is reported as abandoned, and the call still returns on idle", async () => {
    const result = await supervisor.run("s1", request({ command: `echo ${"a".repeat(40)}b; sleep 30`, success_pattern: "^(a+)+$", idle_ms: 1_500 }))
    expect(result).toContain("status: still running (no new output for 1500 ms)")
    expect(result).toMatch(/success_pattern "\^\(a\+\)\+\$" was abandoned: one match step ran past its \d+ ms time budget/)
    expect(await supervisor.kill(jobIdOf(result))).toContain("killed its whole process tree")
  })

  it("accepts the /source/flags form and refuses flags outside the safe set, saying how to write it", async () => {
    const result = await supervisor.run("s1", request({ command: "echo Server Listening; sleep 30", success_pattern: "/listening/i", idle_ms: 4_000 }))
    expect(result).toContain("status: success pattern matched; still running")
    await supervisor.kill(jobIdOf(result))
    expect(() => request({ command: "echo", success_pattern: "/hello/x" })).toThrow(
      /forge_shell: success_pattern "\/hello\/x": flag "x" is not supported; write \/source\/flags with flags from i, m, s, u/,
    )
    expect(() => request({ command: "echo", success_pattern: "/hello(/i" })).toThrow(/success_pattern "\/hello\(\/i" is not a valid regular expression/)
  })
})
