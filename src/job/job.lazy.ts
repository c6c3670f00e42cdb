import type { DriverClaims } from "../../services/lifecycle/driver.claim"
import { noticeParts } from "../../adapters/opencode/forge.notice"
import { randomBytes } from "node:crypto"
import type { PluginInput } from "@opencode-ai/plugin"
import { currentHost, releaseHost } from "../../adapters/process/job.hosts"
import { createJobProcesses } from "../../adapters/process/job.processes"
import { installExitMatrix } from "../../adapters/process/exit.matrix"
import type { ResolvedShell } from "../../adapters/process/shell.resolver"
import { FsJobLogs } from "../../adapters/workspace/job.logs"
import type { Clock, LifecycleRepository, Logger } from "../../services/lifecycle/lifecycle.ports"
import { LifecycleHost } from "../../services/lifecycle/lifecycle.host"
import { JobLedger } from "../../services/job/job.ledger"
import { withContainmentLedger } from "../../services/job/containment.ledger"
import { JobRegistry } from "../../services/job/job.registry"
import type { StoreStorage } from "../../services/job/job.stores"
import type { KeyValueStorage } from "../../adapters/storage/keyvalue.storage"
import type { LedgerStore } from "../../services/lifecycle/ledger.ports"
import type { JobProcesses } from "../../services/job/job.ports"
import { systemTimers } from "../system"
import { JobSupervisor } from "../../services/job/job.service"
import type { HostJobsHandle } from "../../adapters/opencode/job/job.handle"
import { jobMachine } from "../../machines/job/job.machine"
import { explainJobBirthRefusal, explainJobRefusal } from "../../machines/job/job.refusals"
import { JOB_CLAIMS } from "../../services/job/job.claims"
import { createJobImplementations } from "../../services/job/job.implementations"
import type { LifecycleParts } from "../forge.module"
import type { SessionSandbox } from "../../adapters/sandbox/loop.sandboxes"

/** The job harness with what tests and benches look into: its ledger, its registry, its shell. */
export interface HostJobs extends HostJobsHandle {
  ledger: JobLedger
  registry: JobRegistry
  shellFamily: string
}

/**
 * The job supervisor of one host process: POSIX processes, logs under the OS temp folder, wakes sent with
 * promptAsync, and exit handlers that take every live non-survive job down with the host.
 */
export function createHostJobs(options: {
  client: PluginInput["client"]
  log: Logger
  clock: Clock
  processes?: JobProcesses
  /** The interpreter of the default processes (resolved here when not given). */
  shell?: ResolvedShell
  logDir?: string
  /** The workspace database the jobs are recorded in (opened lazily; undefined records nothing). */
  repository: () => Promise<LifecycleRepository | undefined>
  /** Where the job registry persists (opened lazily); without it it lives in memory only. */
  keyValue?: () => Promise<KeyValueStorage>
  /** The workspace's ledger store the job ledger appends to; without it the ledger lives in memory only. */
  ledgers?: LedgerStore
  /** The workspace's one lifecycle host; without it the jobs get one of their own over `repository`. */
  host?: LifecycleHost
  /** Hands a due wake to the session's goal, whose next brief carries it; false (or none): the wake is sent here. */
  carryWake?: (sessionId: string, text: string) => Promise<boolean>
  /** The workspace's one driver claim: which process takes up a dead host's job. */
  claims?: DriverClaims
  /** The sandbox command line a root session's commands run inside (its loop's); without it every job is unconfined. */
  sandboxOf?: (sessionId: string) => SessionSandbox | null
}): HostJobs {
  const keyValue = options.keyValue
  const storage: StoreStorage | undefined = keyValue && {
    getItem: async (name) => (await keyValue()).getItem(name),
    setItem: async (name, value) => (await keyValue()).setItem(name, value),
    removeItem: async (name) => (await keyValue()).removeItem(name),
    names: async (prefix) => (await keyValue()).names(prefix),
  }
  const jobHost = currentHost()
  const lifecycles = options.host ?? new LifecycleHost({ repository: options.repository, clock: options.clock, log: options.log })
  const persistFailed = (what: string) => (error: unknown) => options.log.warn(`${what}: ${String(error)}`)
  const ledger = new JobLedger(options.ledgers, (problem) => options.log.warn(`job ledger: ${problem}`))
  const registry = new JobRegistry(jobHost, storage, persistFailed("job registry"))
  // The ledger names the containment the first job runs under (and any change of it).
  const processes = withContainmentLedger(options.processes ?? createJobProcesses({ shell: options.shell }), ledger, options.clock, options.log)
  const supervisor = new JobSupervisor({
    processes,
    logs: new FsJobLogs(options.logDir),
    clock: options.clock,
    timers: systemTimers,
    log: options.log,
    lifecycles: lifecycles,
    ledger,
    registry,
    host: jobHost,
    claims: options.claims,
    // Job ids are process markers too: unique across hosts, so one host can never kill another's jobs.
    newJobId: () => `job_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`,
    sessionIsIdle: async (sessionId) => {
      const result = await options.client.session.status()
      if (result.error || result.data === undefined) throw new Error(`session.status failed: ${JSON.stringify(result.error)}`)
      // Only sessions that are not idle are listed.
      return result.data[sessionId] === undefined || result.data[sessionId].type === "idle"
    },
    wake: async (sessionId, text) => {
      // A goal whose brief follows this idle carries the wake: one prompt per idle (the brief's notice names the job).
      if ((await options.carryWake?.(sessionId, text)) === true) return
      // The wake is for the model: synthetic, and Forge's notice beside it tells the user why the session starts
      // working on its own (forge.notice.ts).
      const result = await options.client.session.promptAsync({ path: { id: sessionId }, body: { parts: noticeParts(text) } })
      if (result.error) throw new Error(`promptAsync failed: ${JSON.stringify(result.error)}`)
    },
  })
  const removeExitHandlers = installExitMatrix(() => supervisor.killAllNow())
  const uninstall = () => {
    removeExitHandlers()
    // The next plugin instance of this process may take over what this one leaves (its survive jobs).
    releaseHost(jobHost)
  }
  const takeOverLeft = async () => {
    const repository = await options.repository()
    const outcome = repository && (await supervisor.takeOverLeft(repository))
    if (outcome === undefined) return
    for (const problem of outcome.problems) options.log.warn(problem)
    if (outcome.adopted.length > 0) options.log.info(`adopted ${outcome.adopted.length} survive job(s) whose opencode process ended`)
    if (outcome.takenOver.length > 0)
      options.log.info(`took over ${outcome.takenOver.length} finished job(s) whose opencode process ended, their result still owed`)
  }
  const sandboxOf = options.sandboxOf ?? (() => null)
  return { supervisor, sandboxOf, ledger, registry, shellFamily: processes.shellFamily(), takeOverLeft, uninstall }
}

/** The job lifecycle's lazy part. */
export const jobParts: LifecycleParts<"job"> = {
  machine: jobMachine,
  createImplementations: createJobImplementations,
  explainRefusal: explainJobRefusal,
  // A survive job beyond the cap of live survivors is refused by the machine, on the count read at the birth.
  explainBirthRefusal: explainJobBirthRefusal,
  restore: { when: "after-open" },
  // A job runs in the process that started it; a survive job whose process ended is taken up by the claim's holder.
  driver: { kind: "claim", claimKind: JOB_CLAIMS, takeOverLeft: (jobs) => jobs.takeOverLeft() },
  create: (parts) =>
    createHostJobs({
      // A job's wake due on a goal's idle rides with the goal's brief (the goal module is built by the time a wake is due).
      carryWake: (sessionId, text) => parts.handle("goal").loop.carryWake(sessionId, text),
      // A loop pass's commands run in its loop's sandbox, a goal auditor's read-only in its own (both modules are built
      // by the time a command runs).
      sandboxOf: (sessionId) => parts.handle("loop").sandboxOf(sessionId) ?? parts.handle("goal").auditSandboxOf(sessionId),
      client: parts.client,
      log: parts.log,
      clock: parts.clock,
      shell: parts.shell,
      repository: parts.repository,
      keyValue: () => parts.database.keyValue(),
      ledgers: parts.ledgers,
      host: parts.host,
      claims: parts.claims,
    }),
  close: (jobs) => jobs.uninstall(),
}
