import type { JobContext } from "../../machines/job/job.machine"

// What forge_shell and forge_jobs tell the model. Every form carries the directory the command really ran in.

export function describeStatus(context: JobContext, alive: boolean): string {
  if (context.completion === "spawn-failed") return `failed to start: ${context.error ?? "unknown error"}`
  if (context.completion === "killed") return "killed (whole process tree)"
  if (context.completion === "orphaned") return "orphaned (the process was gone when this host started)"
  if (!alive) {
    const how = context.signal ? `signal ${context.signal}` : `exit code ${context.exitCode ?? "unknown"}`
    return `exited with ${how}`
  }
  switch (context.completion) {
    case "pattern":
      return "success pattern matched; still running"
    case "idle":
      return `still running (no new output for ${context.idleMs} ms)`
    case "max-wait":
      return `still running (waited the ${context.maxWaitMs} ms maximum; the process was not killed)`
    case "background":
      return "started in the background; still running"
    default:
      return "still running"
  }
}

/** What forge_jobs kill says: a running tree killed, or what an exited shell left running, and any survivors. */
export function killReply(context: JobContext, wasAlive: boolean, survivors: readonly number[]): string {
  const what = wasAlive ? "killed its whole process tree" : `it had already ${describeStatus(context, false)}; killed whatever it left running`
  return survivors.length === 0
    ? `job ${context.jobId}: ${what}.`
    : `job ${context.jobId}: ${what}, but ${survivors.length} process(es) survived: ${survivors.join(", ")}`
}

export function formatJobResult(context: JobContext, alive: boolean, output: string, extra: string[] = []): string {
  const lines = [`cwd: ${context.cwd}`, `job: ${context.jobId}`, `status: ${describeStatus(context, alive)}`, `log: ${context.logFile}`, ...extra]
  if (alive) lines.push(`Follow it with forge_jobs (poll to wait for news, log to page the output, kill to stop it).`)
  lines.push(output === "" ? "output: (none)" : `output (tail):\n${output}`)
  return lines.join("\n")
}

/** When the tail shown is not the whole output: how to page the rest (also after the result was delivered). */
export function outputCutNotice(jobId: string, logBytes: number, tail: string): string[] {
  if (logBytes <= new TextEncoder().encode(tail).length) return []
  return [`the output (${logBytes} bytes) is longer than the tail below: forge_jobs log {jobId: "${jobId}", offset: 1} pages all of it.`]
}

/** A forge_jobs log page: numbered lines, where to go on, and whether older lines fell out of the window. */
export function formatLogPage(page: { lines: string[]; total: number; truncated: boolean }, offset: number): string {
  const last = offset + page.lines.length - 1
  const notice = last < page.total ? `\n(lines ${offset}-${last} of ${page.total}; next offset ${last + 1})` : ""
  const window = page.truncated ? "\n(the log is larger than the 8 MB window; older lines are not shown)" : ""
  return `${page.lines.map((l, i) => `${offset + i}: ${l}`).join("\n")}${notice}${window}`
}

export function wakeText(context: JobContext, tail: string): string {
  return [
    `[forge:job-complete] Job ${context.jobId} finished: ${describeStatus(context, false)}.`,
    `command: ${context.command}`,
    `cwd: ${context.cwd}`,
    tail === "" ? "output: (none)" : `output (tail):\n${tail}`,
  ].join("\n")
}

/** One `forge_jobs list` row. */
export function listRow(context: JobContext, state: string): string {
  return `- ${context.jobId} [${state}${context.previousRun ? ", previous-run" : ""}] pid ${context.pid ?? "-"} cwd ${context.cwd} — ${context.command}`
}

/** The facts of a forge_shell / forge_jobs poll answer (formatJobResult's header lines and tail), for a tool's line. */
export interface JobAnswerFacts {
  cwd?: string
  job?: string
  status?: string
  /** The last lines of the output tail, or "" when there was none. */
  output: string
}

/** Reads back what formatJobResult wrote: the header lines by name, then the output tail's last `lines` lines. */
export function jobAnswerFacts(answer: string, lines = 3): JobAnswerFacts {
  const header = (name: string) => answer.match(new RegExp(`^${name}: (.*)$`, "m"))?.[1]
  const tailAt = answer.indexOf("\noutput (tail):\n")
  const tail = tailAt < 0 ? "" : answer.slice(tailAt + "\noutput (tail):\n".length)
  const last = tail.split("\n").filter((line) => line.trim() !== "")
  return { cwd: header("cwd"), job: header("job"), status: header("status"), output: last.slice(-lines).join(" ⏎ ") }
}
