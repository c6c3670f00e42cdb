// forge_shell's answer once the command ran (or runs on): its status, the tail of its output and what happened
// after it. A step after the run that fails (reading the output, the kill after a match) is reported beside the
// result, never instead of it: the model would run a command again that already did its work.
import { formatJobResult, outputCutNotice } from "./job.report"
import type { JobProcesses } from "./job.ports"
import { WAKE_TAIL_BYTES } from "./job.wakes"
import type { LiveJob } from "./live.job"

/** The answer of a job whose wait has ended; the caller's next poll drains only what comes after it. */
export async function ranAnswer(job: LiveJob, processes: Pick<JobProcesses, "sizeOf" | "readTail">): Promise<string> {
  const { jobId, logFile } = job.snapshot.context
  const extra: string[] = job.patternAbandoned === undefined ? [] : [job.patternAbandoned]
  // The machine decided the kill with the match (keep_alive: false) and its effect is carrying it out.
  if (job.killAfterMatch !== undefined) {
    try {
      const { survivors } = await job.killAfterMatch
      extra.push(
        survivors.length === 0
          ? "keep_alive is false: the process tree was killed after the match."
          : `keep_alive is false, but ${survivors.length} process(es) survived the kill: ${survivors.join(", ")}`,
      )
    } catch (error) {
      extra.push(
        `keep_alive is false, but killing the process tree after the match failed (${messageOf(error)}); forge_jobs kill {jobId: "${jobId}"} tries again.`,
      )
    }
  }
  const alive = job.snapshot.hasTag("alive")
  let tail = ""
  try {
    const size = await processes.sizeOf(logFile)
    tail = await processes.readTail(logFile, WAKE_TAIL_BYTES)
    extra.push(...outputCutNotice(jobId, size, tail))
    // The caller now holds everything up to here: a later poll drains only what comes after.
    if (alive) job.readOffset = await processes.sizeOf(logFile)
  } catch (error) {
    extra.push(
      `The command ran, but its output could not be read afterwards (${messageOf(error)}); forge_jobs log {jobId: "${jobId}"} shows it while its log exists.`,
    )
  }
  return formatJobResult(job.snapshot.context, alive, tail, extra)
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))
