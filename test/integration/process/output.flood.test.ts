// A job that floods ~200 MB of output: it all lands in the log, and the host never buffers it because the host holds
// no pipe (job.spawn.test checks the file descriptors) and reads only bounded windows. The memory target itself is
// measured by bench/jobs.ts; here the bound only tells "not buffered" from "buffered", with room for GC noise.
import { statSync } from "node:fs"
import path from "node:path"
import { afterEach, expect, it } from "vitest"
import { readLines, readNew, readTail, spawnJob, watchGrowth } from "../../../adapters/process/index"
import { makeTempDir } from "./process.helpers"

const temp = makeTempDir()
afterEach(() => temp.remove())

const FLOOD_BYTES = 200_000_000
const LINE = "forge flood line\n"

it("captures a 200 MB flood in the log with flat host memory", async () => {
  const logFile = path.join(temp.dir, "flood.log")
  const rssBefore = process.memoryUsage().rss
  let peakRss = rssBefore
  let growthEvents = 0
  const watch = watchGrowth(
    logFile,
    () => {
      growthEvents += 1
      peakRss = Math.max(peakRss, process.memoryUsage().rss)
    },
    { intervalMs: 20 },
  )
  const job = await spawnJob({
    command: `yes '${LINE.trim()}' | head -c ${FLOOD_BYTES}`,
    cwd: temp.dir,
    logFile,
    marker: `flood-${process.pid}`,
    fenced: false,
  })
  const exit = await job.exited
  watch.stop()
  const floodPeak = peakRss - rssBefore
  expect(exit.code).toBe(0)
  expect(statSync(logFile).size).toBe(FLOOD_BYTES)

  // Bounded reads of the huge log.
  const tail = await readTail(logFile, 64 * 1024)
  expect(tail.length).toBeLessThanOrEqual(64 * 1024)
  expect(tail.startsWith(LINE)).toBe(true)
  const increment = await readNew(logFile, FLOOD_BYTES - 1024 * 1024, 1024 * 1024)
  expect(increment.nextOffset).toBe(FLOOD_BYTES)
  const page = await readLines(logFile, { offset: 10_000_000, limit: 3 })
  expect(page.lines).toEqual([LINE.trim(), LINE.trim(), LINE.trim()])

  expect(growthEvents).toBeGreaterThan(0)
  // A host that buffered the output would grow by at least the 200 MB that went through.
  expect(floodPeak).toBeLessThan(FLOOD_BYTES / 2)
}, 60_000)
