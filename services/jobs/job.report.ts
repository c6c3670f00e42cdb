import type { JobContext } from "../../machines/job.machine"

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

export function formatJobResult(context: JobContext, alive: boolean, output: string, extra: string[] = []): string {
  const lines = [
    `cwd: ${context.cwd}`,
    `job: ${context.jobId}`,
    `status: ${describeStatus(context, alive)}`,
    `log: ${context.logFile}`,
    ...extra,
  ]
  if (alive) lines.push(`Follow it with forge_jobs (poll to wait for news, log to page the output, kill to stop it).`)
  lines.push(output === "" ? "output: (none)" : `output (tail):\n${output}`)
  return lines.join("\n")
}

export function wakeText(context: JobContext, tail: string): string {
  return [
    `[forge:job-complete] Job ${context.jobId} finished: ${describeStatus(context, false)}.`,
    `command: ${context.command}`,
    `cwd: ${context.cwd}`,
    tail === "" ? "output: (none)" : `output (tail):\n${tail}`,
  ].join("\n")
}
