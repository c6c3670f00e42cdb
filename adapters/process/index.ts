// Public surface of the process adapter: every capability runs its commands through these.
export { resolveShell } from "./shell.resolver"
export { JOB_HOST_VAR, JOB_ID_VAR } from "./job.markers"
export { spawnJob, type SpawnedJob } from "./job.spawn"
export {
  bootTimeMs,
  clockTicksPerSecond,
  descendantsOf,
  findByEnv,
  hasEnv,
  isAlive,
  isSameProcess,
  listPids,
  pidsWithEnv,
  readProcess,
  readProcessStat,
  readProcessTable,
} from "./proc.table"
export { killJobTree, killJobTreeNow, type JobTarget } from "./job.tree.kill"
export { startFence } from "./job.fence"
export { SUBREAPER_LABEL } from "./job.containment"
export { installExitMatrix } from "./exit.matrix"
export { compilePattern, createPatternMatcher, type PatternMatcher } from "./pattern.matcher"
export { logSize, readLines, readNew, readTail, readWindowLines, watchGrowth } from "./log.reader"
export { createJobProcesses } from "./job.processes"
