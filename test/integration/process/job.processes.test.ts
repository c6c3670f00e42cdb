// The job supervisor's port served by the process adapter, end to end with a real job.
import path from "node:path"
import { afterAll, afterEach, expect, it } from "vitest"
import { createJobProcesses, isAlive, JOB_ID_VAR, pidsWithEnv } from "../../../adapters/process/index"
import { makeTempDir, pidJanitor, waitFor } from "./process.helpers"

const janitor = pidJanitor()
const temp = makeTempDir()
afterEach(() => janitor.cleanup())
afterAll(() => temp.remove())

it("spawns, watches, reads, matches and kills through the JobProcesses port", async () => {
  const processes = createJobProcesses({ killGraceMs: 500, growthPollMs: 10 })
  expect(["bash", "zsh", "ksh", "sh"]).toContain(processes.shellFamily())
  const logFile = path.join(temp.dir, "port.log")
  const jobId = `port-${process.pid}`
  const grown: number[] = []
  const stop = processes.watchGrowth(logFile, (size) => grown.push(size))
  const running = await processes.spawn({
    jobId,
    command: "printf 'one\\ntwo\\nready\\n'; setsid sleep 60 & sleep 60",
    cwd: temp.dir,
    logFile,
    fenced: true,
    sandbox: null,
  })
  janitor.add(running.pid)
  expect(await waitFor(() => grown.length > 0 && pidsWithEnv(JOB_ID_VAR, jobId).length === 3, 10_000)).toBe(true)
  stop()
  const pids = pidsWithEnv(JOB_ID_VAR, jobId)
  janitor.add(...pids)

  expect(await processes.sizeOf(logFile)).toBe(14)
  expect(await processes.readNew(logFile, 4, 100)).toEqual(expect.objectContaining({ text: "two\nready\n", nextOffset: 14 }))
  expect(await processes.readTail(logFile, 6)).toBe("ready\n")
  expect(await processes.readLines(logFile, 2, 5)).toEqual({ lines: ["two", "ready"], total: 3, truncated: false })

  const matcher = processes.createMatcher("^ready$")
  expect(await matcher.feed("one\ntwo\nready\n")).toBe("match")
  matcher.dispose()
  expect(() => processes.createMatcher("(")).toThrow(/success_pattern "\(" is not a valid regular expression/)

  expect(await processes.killTree({ pid: running.pid, jobId })).toEqual(expect.objectContaining({ survivors: [] }))
  expect(pids.filter(isAlive)).toEqual([])
  expect((await running.exited).signal).toBe("SIGTERM")
})
