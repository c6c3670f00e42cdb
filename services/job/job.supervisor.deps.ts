import type { JobHost } from "../../machines/job/job.machine"
import type { DriverClaims } from "../lifecycle/driver.claim"
import type { LifecycleHost } from "../lifecycle/lifecycle.host"
import type { Clock, Logger } from "../lifecycle/lifecycle.ports"
import type { JobLedger } from "./job.ledger"
import type { JobLogs, JobProcesses, SessionIdleQuery, Timers, WakeSender } from "./job.ports"
import type { JobRegistry } from "./job.registry"

/** What the job supervisor works with: the host's processes, logs, clock and timers, and the workspace's stores. */
export interface JobSupervisorDeps {
  processes: JobProcesses
  logs: JobLogs
  clock: Clock
  timers: Timers
  log: Logger
  wake: WakeSender
  newJobId: () => string
  /**
   * The workspace's one lifecycle host: the supervisor defines the job lifecycle on it (every job transition is
   * recorded; the next start restores from them), with its own handlers for the machine's effects.
   */
  lifecycles: LifecycleHost
  /** The bounded record of what happened to jobs nobody was waiting on. */
  ledger: JobLedger
  /** Which jobs this host runs and for whom, and which results were delivered. */
  registry: JobRegistry
  /** This host process: stamped on every job it starts or adopts. */
  host: JobHost
  /** Whether a session this host has no status for yet is idle (without it, such a session counts as busy). */
  sessionIsIdle?: SessionIdleQuery
  /**
   * The workspace's one driver claim: of the processes restoring a dead host's job, the one that takes its claim
   * adopts it. Without it this process is the only one (the record's revision still fences the step).
   */
  claims?: DriverClaims
  /** The cap on live survive jobs the job machine's birth gate applies; MAX_SURVIVORS unless a test lowers it. */
  maxSurvivors?: number
}
