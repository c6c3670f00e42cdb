import { spawn } from "node:child_process"
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { afterEach, beforeEach, expect, it } from "vitest"
import { isAlive } from "../../../adapters/process/proc.table"
import { FsJobLogs } from "../../../adapters/workspace/job.logs"

// Job logs are bounded by count in a folder every opencode process of the machine shares.

let dir: string
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "forge-logs-"))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

/** Five logs, job_1 the oldest. */
function seedLogs(logs: FsJobLogs): void {
  for (let n = 1; n <= 5; n++) {
    const file = logs.pathFor(`job_${n}`)
    writeFileSync(file, `log ${n}\n`)
    utimesSync(file, n * 1000, n * 1000)
  }
}
const present = (logs: FsJobLogs) => [1, 2, 3, 4, 5].filter((n) => existsSync(logs.pathFor(`job_${n}`)))

it("removes the oldest logs beyond the bound, never one of the given live jobs'", async () => {
  const logs = new FsJobLogs(dir, 2)
  seedLogs(logs)
  await logs.rotate(new Set(["job_1"]))
  expect(present(logs)).toEqual([1, 5])
})

it("never removes a log another process still writes, whichever host started it", async () => {
  const logs = new FsJobLogs(dir, 2)
  seedLogs(logs)
  // Another host's running job: its stdout is job_2's log.
  const fd = openSync(logs.pathFor("job_2"), "a")
  const writer = spawn("sleep", ["30"], { stdio: ["ignore", fd, fd] })
  closeSync(fd)
  try {
    await logs.rotate(new Set())
    expect(present(logs)).toEqual([2, 5])
  } finally {
    writer.kill("SIGKILL")
    await expect.poll(() => isAlive(writer.pid as number)).toBe(false)
  }
  // Once it finished, its log is an old finished one like any other.
  writeFileSync(logs.pathFor("job_6"), "log 6\n")
  await logs.rotate(new Set())
  expect(present(logs)).toEqual([5])
  expect(existsSync(logs.pathFor("job_6"))).toBe(true)
})

it("removes a rotated job's exit status (kept by its shim) with its log", async () => {
  const logs = new FsJobLogs(dir, 2)
  seedLogs(logs)
  for (const n of [1, 5]) writeFileSync(path.join(dir, `job_${n}.exit`), "exit 0 -\n")
  await logs.rotate(new Set())
  expect(present(logs)).toEqual([4, 5])
  expect(existsSync(path.join(dir, "job_1.exit"))).toBe(false)
  expect(existsSync(path.join(dir, "job_5.exit"))).toBe(true)
})
