// Exit-to-return latency: many short foreground forge_shell jobs, each timed from the moment the process adapter
// delivered the job's exit report to the moment `run()` resolved with the result text.
import path from "node:path"
import { type BenchJobs, jobIdOf, removeFile } from "./jobs.harness"

export interface LatencyRun {
  /** Exit report delivered → run() resolved, ms, at hrtime resolution. */
  exitToReturnMs: number[]
  /** The same span by the exit report's own `at` (epoch ms, whole milliseconds): a cross-check. */
  exitAtToReturnMs: number[]
  /** run() called → run() resolved, ms. */
  wholeCallMs: number[]
}

export async function measureExitLatency(jobs: BenchJobs, command: string, calls: number, problems: string[]): Promise<LatencyRun> {
  const run: LatencyRun = { exitToReturnMs: [], exitAtToReturnMs: [], wholeCallMs: [] }
  for (let i = 0; i < calls; i++) {
    const start = process.hrtime.bigint()
    const result = await jobs.supervisor.run("bench-latency", jobs.request({ command }))
    const returned = process.hrtime.bigint()
    const returnedAt = Date.now()
    const jobId = jobIdOf(result)
    removeFile(path.join(jobs.logDir, `${jobId}.log`))
    const exit = jobs.exits.get(jobId)
    jobs.exits.delete(jobId)
    if (!result.includes("status: exited with exit code 0")) problems.push(`short job ${i} did not report its exit:\n${result.slice(0, 300)}`)
    if (exit === undefined) {
      problems.push(`short job ${i} returned before the process adapter reported its exit`)
      continue
    }
    run.exitToReturnMs.push(Number(returned - exit.hr) / 1e6)
    run.exitAtToReturnMs.push(returnedAt - exit.report.at)
    run.wholeCallMs.push(Number(returned - start) / 1e6)
  }
  return run
}
