// Public surface of the job lifecycle: the supervisor (forge_shell, forge_jobs), its lifecycle on the one host, the
// effects its machine declares, the ledger and registry it keeps, and the ports a harness provides.
export { JobSupervisor } from "./job.service"
export type { JobSupervisorDeps } from "./job.supervisor.deps"
export type { JobRestoreOutcome } from "./job.restore"
export { defineJobLifecycle, type JobLifecycleOptions } from "./job.lifecycle"
export { KILL_GRACE_MS, createJobImplementations, type JobEffectHandlers, type JobImplementationDeps, type KillOutcome } from "./job.implementations"
export { JOB_LEDGER_KINDS, JOB_LEDGER_LIMIT, JobLedger, jobLedgerDefinition, jobLedgerEntrySchema, type JobLedgerEntry } from "./job.ledger"
export { CONSUMED_LIMIT, JOB_REGISTRY_NAME, JobRegistry, jobRegistrationSchema, type JobRegistration } from "./job.registry"
export { jobInputOf, shellRequestSchema, toShellRequest, type ShellArgs, type ShellRequest, type SurvivePolicy } from "./job.request"
export { withContainmentLedger } from "./containment.ledger"
export { SUCCESS_PATTERN_FLAGS, parseSuccessPattern, type SuccessPattern } from "./success.pattern"
export type {
  ExitReport,
  JobLogs,
  JobProcesses,
  JobProcessTarget,
  MatchOutcome,
  OutputMatcher,
  RunningProcess,
  SessionIdleQuery,
  SpawnRequest,
  Timers,
  WakeSender,
} from "./job.ports"
