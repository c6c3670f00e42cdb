// The job ledger names the containment a host's jobs run under: once, at the first spawn, and again only when it
// changes. Real processes, a real ledger.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { afterEach, beforeEach, expect, it } from "vitest"
import { createJobProcesses } from "../../../adapters/process/job.processes"
import { withContainmentLedger } from "../../../services/job/containment.ledger"
import { JobLedger } from "../../../services/job/job.ledger"
import { memoryLogger } from "../plan/plan.helpers"

let dir: string
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "forge-containment-"))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

async function runTwoJobs(processes: ReturnType<typeof createJobProcesses>): Promise<JobLedger> {
  const ledger = new JobLedger()
  const recording = withContainmentLedger(processes, ledger, { now: () => Date.now() }, memoryLogger())
  for (const jobId of ["job_a", "job_b"]) {
    const running = await recording.spawn({ jobId, command: "exit 0", cwd: dir, logFile: path.join(dir, `${jobId}.log`), fenced: false, sandbox: null })
    await running.exited
  }
  return ledger
}

it("records the subreaper shim once for a host whose perl can set it up", async () => {
  const ledger = await runTwoJobs(createJobProcesses())
  expect((await ledger.entries()).map((e) => `${e.kind} ${e.jobId}: ${e.message}`)).toEqual(["containment job_a: containment: subreaper (perl prctl)"])
})

it("records the marker fallback, with its reason, where the shim cannot run", async () => {
  const ledger = await runTwoJobs(createJobProcesses({ perl: path.join(dir, "no-perl") }))
  const entries = await ledger.entries()
  expect(entries).toHaveLength(1)
  expect(entries[0]?.message).toMatch(/^containment: environment marker only \(cannot run .*no-perl: .*ENOENT.*\)$/)
})
