// The job supervisor's port onto this adapter: services/job asks through JobProcesses, POSIX answers here.
import type { JobProcesses, MatchOutcome } from "../../services/job/job.ports"
import type { ContainmentChoice } from "./job.containment"
import { readExitStatus } from "./job.shim"
import { spawnJob } from "./job.spawn"
import { logSize, readNew, readTail, readWindowLines, watchGrowth } from "./log.reader"
import { createPatternMatcher } from "./pattern.matcher"
import { sandboxedShell } from "./sandboxed.shell"
import { type ResolvedShell, resolveShell } from "./shell.resolver"
import { killJobTree, killJobTreeNow } from "./job.tree.kill"
import { isHostAlive, isSameProcessAt } from "./job.hosts"

export interface JobProcessesOptions {
  /** SIGTERM grace of a kill before SIGKILL (ms). */
  killGraceMs?: number
  /** How often a watched log's size is polled (ms). */
  growthPollMs?: number
  /** The interpreter; the host-aligned shell by default (resolved once). */
  shell?: ResolvedShell
  /** `auto` (default): the subreaper shim where perl can set it up; `markers`: the environment markers only. */
  containment?: ContainmentChoice
  /** The perl that runs the shim ("perl" on PATH by default). */
  perl?: string
}

export function createJobProcesses(options: JobProcessesOptions = {}): JobProcesses {
  const shell = options.shell ?? resolveShell()
  return {
    shellFamily: () => shell.family,
    spawn: (request) =>
      spawnJob({
        command: request.command,
        cwd: request.cwd,
        logFile: request.logFile,
        marker: request.jobId,
        fenced: request.fenced,
        shell: request.sandbox === null ? shell : sandboxedShell(shell, request.sandbox),
        containment: options.containment,
        perl: options.perl,
      }),
    killTree: (job, kill) => killJobTree(job, { graceMs: kill?.graceMs ?? options.killGraceMs ?? 3000 }),
    killTreeNow: (job) => void killJobTreeNow(job),
    isSameProcess: isSameProcessAt,
    isHostAlive,
    watchGone(job, onGone) {
      // The shim writes the status right after it reaped the shell: a few polls' grace before the exit counts as unknown.
      let missing = 0
      const timer = setInterval(() => {
        if (isSameProcessAt(job.pid, job.startedAt)) return
        const exit = readExitStatus(job.logFile)
        if (exit === null && ++missing < 5) return
        clearInterval(timer)
        onGone(exit)
      }, options.growthPollMs ?? 100)
      timer.unref?.()
      return () => clearInterval(timer)
    },
    keptExit: (logFile) => readExitStatus(logFile),
    createMatcher(source, flags) {
      const matcher = createPatternMatcher(source, flags === undefined ? {} : { flags })
      return {
        budgetMs: matcher.budgetMs,
        async feed(text): Promise<MatchOutcome> {
          const result = await matcher.feed(text)
          return result.status === "matched" ? "match" : result.status
        },
        dispose: () => matcher.close(),
      }
    },
    watchGrowth(logFile, onGrowth) {
      // From 0: output written before the watch began (a fast job) still counts as new output.
      const watch = watchGrowth(logFile, (size) => onGrowth(size), { intervalMs: options.growthPollMs ?? 100, fromSize: 0 })
      return () => watch.stop()
    },
    sizeOf: logSize,
    readTail,
    readNew,
    // The port numbers lines from 1 within the 8 MB window that ends at the log's end.
    async readLines(logFile, offset, limit) {
      const page = await readWindowLines(logFile, { offset: Math.max(0, offset - 1), limit })
      return { lines: page.lines, total: page.total, truncated: page.truncated }
    },
  }
}
