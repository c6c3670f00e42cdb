// Public surface of the process adapter: every capability runs its commands through these.
export {
  DEFAULT_SHELL_LOCATIONS,
  resolveShell,
  type ResolvedShell,
  type ShellEnvironment,
  type ShellFamily,
  type ShellLocations,
} from "./shell.resolver"
export { JOB_HOST_VAR, JOB_ID_VAR, type EnvironmentOverrides } from "./job.markers"
export { spawnJob, type JobExit, type SpawnedJob, type SpawnJobOptions } from "./job.spawn"
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
  readProcessStats,
  readProcessTable,
  type ProcessInfo,
  type ProcessStat,
} from "./proc.table"
export { killJobTree, killJobTreeNow, type JobTarget, type KillJobTreeOptions, type KillReport } from "./job.tree.kill"
export { fenceToken, startFence, type Fence } from "./job.fence"
export { decideContainment, SUBREAPER_LABEL, type Containment, type ContainmentChoice } from "./job.containment"
export { exitStatusFile, readExitStatus } from "./job.shim"
export { installExitMatrix } from "./exit.matrix"
export {
  compilePattern,
  createPatternMatcher,
  type MatchResult,
  type PatternMatcher,
  type PatternMatcherOptions,
  type PatternMatcherState,
} from "./pattern.matcher"
export {
  DEFAULT_WINDOW_BYTES,
  logSize,
  readLines,
  readNew,
  readTail,
  readWindowLines,
  watchGrowth,
  type GrowthWatch,
  type LinePage,
  type NewOutput,
  type ReadLinesOptions,
  type WindowLinePage,
} from "./log.reader"
export { createJobProcesses, type JobProcessesOptions } from "./job.processes"
export { currentHost, isHostAlive, releaseHost } from "./job.hosts"
export { commandDirectories, commandPaths, createProcessLocator, hostLineage, processClock, type ProcessLocatorOptions } from "./process.locator"
export { createProcessKiller, killProcessTrees, type KillProcessTreesOptions, type ProcessTreesKillReport } from "./watchdog.tree.kill"
