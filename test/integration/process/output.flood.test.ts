// A job that floods ~200 MB of output: it all lands in the log, and the host's memory stays flat because the host
// holds no pipe and reads only bounded windows.
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
  peakRss = Math.max(peakRss, process.memoryUsage().rss)

  expect(growthEvents).toBeGreaterThan(0)
  // 200 MB went through; the host may move by a few MB of ordinary allocation, nowhere near the output size.
  expect(peakRss - rssBefore).toBeLessThan(40 * 1024 * 1024)
}, 60_000)
