// The job supervisor over real processes, real log files and real timers, as the job.supervisor.*.test.ts files set it
// up. Only the wake channel (opencode's promptAsync) is recorded instead of sent.
import { spawn } from "node:child_process"
import path from "node:path"
import { afterEach, beforeEach, expect } from "vitest"
import { currentHost } from "../../../adapters/process/job.hosts"
import { createJobProcesses } from "../../../adapters/process/job.processes"
import { isAlive, readProcess } from "../../../adapters/process/proc.table"
import { createKeyValueStorage } from "../../../adapters/storage/keyvalue.storage"
import { SqliteLedgerStore } from "../../../adapters/storage/ledger.repository"
import { type LifecycleStore, openLifecycleStore } from "../../../adapters/storage/lifecycle.store"
import { FsJobLogs } from "../../../adapters/workspace/job.logs"
import type { JobHost } from "../../../machines/job/job.machine"
import { JobLedger } from "../../../services/job/job.ledger"
import { JobRegistry } from "../../../services/job/job.registry"
import { type ShellArgs, toShellRequest } from "../../../services/job/job.request"
import { JobSupervisor } from "../../../services/job/job.service"
import { LifecycleHost } from "../../../services/lifecycle/lifecycle.host"
import { systemTimers } from "../../../src/system"
import { defined } from "../../defined"
import { tempDir } from "../../temp.dir"
import { memoryLogger } from "../plan/plan.helpers"

/** Waits (generously: the machine may be loaded) until `done` holds. */
export async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !done(); i++) await new Promise((r) => setTimeout(r, 100))
}

/** The job id a forge_shell result names. */
export const jobIdOf = (result: string) => /job: (\S+)/.exec(result)?.[1] ?? ""

/** Another host process of the same workspace, stood in for by a child process that lives until killed. */
export async function otherHost(): Promise<{ host: JobHost; kill(): Promise<void> }> {
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

/** What one test works with: its folder, its database and job ledger, the wakes sent, and the supervisor over them. */
interface SupervisorTest {
  dir: string
  store: LifecycleStore
  ledger: JobLedger
  wakes: { session: string; text: string }[]
  supervisor: JobSupervisor
}

/** How a test's extra supervisor differs from the one each test starts with. */
interface SupervisorOptions {
  host?: JobHost
  ledger?: JobLedger
  silenced?: () => boolean
  sessionIsIdle?: (id: string) => Promise<boolean>
  /** Stands in for the host's processes port: lets a test break one of its steps. */
  processes?: (real: ReturnType<typeof createJobProcesses>) => ReturnType<typeof createJobProcesses>
  /** A survivor cap lower than MAX_SURVIVORS: the birth gate's refusal without starting a hundred processes. */
  maxSurvivors?: number
}

/**
 * Gives every test of the calling describe block a fresh world (a temp folder, its workspace database and job ledger,
 * a supervisor of this process's host), disposed after the test; `current()` is the running test's.
 */
export function supervisorWorld() {
  let dir: string
  let wakes: { session: string; text: string }[]
  let supervisor: JobSupervisor
  let seq = 0
  const request = (args: ShellArgs) => toShellRequest(args, { cwd: dir, survive: "never" }, (cwd) => path.resolve(dir, cwd))

  let store: LifecycleStore
  let ledger: JobLedger
  const clock = { now: () => Date.now() }
  const host = currentHost()
  /** A host whose records stop when `silenced` says so: what a host that died leaves behind. */
  const newSupervisor = (options: SupervisorOptions = {}) => {
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
      maxSurvivors: options.maxSurvivors,
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

  const current = (): SupervisorTest => ({ dir, store, ledger, wakes, supervisor })
  return { host, clock, request, newSupervisor, recorded, current }
}
