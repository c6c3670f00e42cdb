// success_pattern matching in a worker: matches, matches across chunks, invalid patterns, and a catastrophic
// pattern that is cut off at its budget while the event loop keeps running.
import { afterEach, describe, expect, it } from "vitest"
import { compilePattern, createPatternMatcher, type PatternMatcher } from "../../../adapters/process/index"

const matchers: PatternMatcher[] = []
function matcher(pattern: string, options?: Parameters<typeof createPatternMatcher>[1]): PatternMatcher {
  const created = createPatternMatcher(pattern, options)
  matchers.push(created)
  return created
}
afterEach(() => {
  for (const created of matchers.splice(0)) created.close()
})

describe("pattern matcher", () => {
  it("finds a match in new output and reports no match otherwise", async () => {
    const ready = matcher("listening on port (\\d+)")
    expect(await ready.feed("starting\n")).toEqual({ status: "no-match" })
    expect(await ready.feed("listening on port 8080\n")).toEqual({ status: "matched", match: "listening on port 8080" })
  })

  it("finds a match that straddles two chunks", async () => {
    const ready = matcher("server ready")
    expect(await ready.feed("log line\nserver re")).toEqual({ status: "no-match" })
    expect(await ready.feed("ady at last\n")).toEqual({ status: "matched", match: "server ready" })
  })

  it("matches ^ only at real line starts, not where the kept overlap was cut", async () => {
    const ready = matcher("^undone$", { overlapChars: 9 })
    // The last 9 characters are "undone\nxy": cut mid-line, so they must not read as a line "undone".
    expect(await ready.feed("aaaaaaaaaa undone\nxy")).toEqual({ status: "no-match" })
    expect(await ready.feed("z\n")).toEqual({ status: "no-match" })
    expect(await ready.feed("undone\n")).toEqual({ status: "matched", match: "undone" })
  })

  it("does not report the same match twice", async () => {
    const ready = matcher("ok")
    expect(await ready.feed("ok\n")).toMatchObject({ status: "matched" })
    expect(await ready.feed("nothing here\n")).toEqual({ status: "no-match" })
  })

  it("refuses an invalid regular expression at creation, naming it", () => {
    expect(() => createPatternMatcher("ready(")).toThrow(/^success_pattern "ready\(" is not a valid regular expression: /)
    expect(() => compilePattern("[a-")).toThrow(/success_pattern "\[a-" is not a valid regular expression/)
  })

  it("cuts a catastrophic pattern off at its budget without blocking the event loop, and stays disabled", async () => {
    const evil = matcher("^(a+)+$", { budgetMs: 250 })
    expect(await evil.feed("warm up\n")).toEqual({ status: "no-match" })
    let ticks = 0
    const timer = setInterval(() => (ticks += 1), 10)
    const started = Date.now()
    const result = await evil.feed(`${"a".repeat(40)}b`)
    const took = Date.now() - started
    clearInterval(timer)
    expect(result).toEqual({ status: "timed-out" })
    expect(took).toBeGreaterThanOrEqual(240)
    // The verdict comes at the budget, not when the regex gives up (which could take minutes); slack for a busy box.
    expect(took).toBeLessThan(5000)
    expect(ticks).toBeGreaterThanOrEqual(5)
    expect(evil.state).toBe("timed-out")
    expect(await evil.feed("anything")).toEqual({ status: "timed-out" })
  })

  it("refuses feeds after close", async () => {
    const closed = matcher("x")
    closed.close()
    await expect(closed.feed("x")).rejects.toThrow('the matcher of "x" is closed')
  })
})
