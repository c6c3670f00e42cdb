// The success-pattern scan over a real log with the real matcher: it catches up to the size it is given in bounded
// steps, finds a match that a step boundary cuts in two, and stops when it is no longer wanted.
import { writeFileSync } from "node:fs"
import path from "node:path"
import { afterEach, beforeEach, expect, it } from "vitest"
import { tempDir } from "../../temp.dir"
import { createJobProcesses } from "../../../adapters/process/job.processes"
import type { OutputMatcher } from "../../../services/job/job.ports"
import { SCAN_STEP_BYTES, type ScanRequest, scanOutput } from "../../../services/job/output.scan"

const processes = createJobProcesses()
let dir: string
let matcher: OutputMatcher
beforeEach(() => {
  dir = tempDir("forge-scan-")
  matcher = processes.createMatcher("^READY$")
})
afterEach(() => {
  matcher.dispose()
})

function log(content: string): { logFile: string; size: number } {
  const logFile = path.join(dir, "job.log")
  writeFileSync(logFile, content)
  return { logFile, size: Buffer.byteLength(content) }
}

function request(logFile: string, upTo: number, extra: Partial<ScanRequest> = {}): ScanRequest & { offsets: number[] } {
  const offsets: number[] = []
  return { matcher, patternText: "^READY$", logFile, from: 0, upTo, isWanted: () => true, advance: (o) => void offsets.push(o), offsets, ...extra }
}

it("catches up to the end of a 5 MB log in one call, in steps of at most 1 MB", async () => {
  const { logFile, size } = log(`${"a line of output\n".repeat((5 * SCAN_STEP_BYTES) / 17)}READY\n`)
  const scan = request(logFile, size)
  expect(await scanOutput(processes.readNew, scan)).toEqual({ kind: "matched" })
  expect(scan.offsets.length).toBeGreaterThanOrEqual(5)
  expect(scan.offsets.at(-1)).toBe(size)
  let previous = 0
  for (const offset of scan.offsets) {
    expect(offset - previous).toBeLessThanOrEqual(SCAN_STEP_BYTES)
    previous = offset
  }
})

it("finds a match that a step boundary cuts in two inside a line longer than a step", async () => {
  // No line end in the first step: it ends after "RE", and the matcher's overlap carries that in front of "ADY".
  const unanchored = processes.createMatcher("READY")
  try {
    const { logFile, size } = log(`${"x".repeat(SCAN_STEP_BYTES - 2)}READY\n`)
    const scan = { ...request(logFile, size), matcher: unanchored }
    expect(await scanOutput(processes.readNew, scan)).toEqual({ kind: "matched" })
    expect(scan.offsets[0]).toBe(SCAN_STEP_BYTES)
  } finally {
    unanchored.dispose()
  }
})

it("ends a step at its last line end, so $ never matches where a step boundary cut a line", async () => {
  // Byte SCAN_STEP_BYTES falls right after "READY" of the line "READY_NOT_YET": that is no line "READY".
  const { logFile, size } = log(`${"x".repeat(SCAN_STEP_BYTES - 6)}\nREADY_NOT_YET\nmore\n`)
  const scan = request(logFile, size)
  expect(await scanOutput(processes.readNew, scan)).toEqual({ kind: "no-match" })
  expect(scan.offsets).toEqual([SCAN_STEP_BYTES - 5, size])
})

it("stops before the next step once it is no longer wanted", async () => {
  const { logFile, size } = log(`${"y".repeat(3 * SCAN_STEP_BYTES)}\nREADY\n`)
  let steps = 0
  const scan = request(logFile, size, { isWanted: () => steps++ < 1 })
  expect(await scanOutput(processes.readNew, scan)).toEqual({ kind: "no-match" })
  expect(scan.offsets).toEqual([SCAN_STEP_BYTES])
})

it("reports a pattern that ran out of its time budget as abandoned, saying why", async () => {
  const evil = processes.createMatcher("^(a+)+$")
  try {
    const { logFile, size } = log(`${"a".repeat(40)}b\n`)
    const outcome = await scanOutput(processes.readNew, { ...request(logFile, size), matcher: evil, patternText: "^(a+)+$" })
    expect(outcome).toEqual({
      kind: "abandoned",
      reason: expect.stringMatching(/^success_pattern "\^\(a\+\)\+\$" was abandoned: one match step ran past its 250 ms time budget/),
    })
  } finally {
    evil.dispose()
  }
})
