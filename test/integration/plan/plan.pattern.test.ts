import { readFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, it } from "vitest"
import { within } from "../opencode/tool.context"
import { PLAN_BODY, useRuntime } from "./plan.helpers"
import { defined } from "../../defined"

// plan_read's pattern is the model's regex run over plan text: it goes through the same bounded matcher as
// success_pattern (a worker with a time budget), so a pattern that backtracks for minutes costs an error, never the
// host's event loop.

// 27 a's then "!": (a+)+$ backtracks through ~2^27 paths, seconds to minutes on the host's thread.
const EVIL_LINE = `${"a".repeat(27)}!`
const EVIL_BODY = PLAN_BODY.replace("Sessions survive 40 s of idle.", EVIL_LINE)

describe("plan_read pattern runs off the event loop with a time budget", () => {
  const live = useRuntime()

  /** Counts timer ticks while `work` runs: zero ticks means the event loop was frozen. */
  async function ticksDuring<T>(work: () => Promise<T>): Promise<{ settled: PromiseSettledResult<T>; ticks: number }> {
    let ticks = 0
    const timer = setInterval(() => (ticks += 1), 20)
    try {
      const [settled] = await Promise.allSettled([within(work(), 60_000, "plan_read")])
      return { settled: defined(settled, "the settled plan_read"), ticks }
    } finally {
      clearInterval(timer)
    }
  }

  it("a catastrophic pattern on the session's plan is abandoned with a clear error while the loop keeps running", async () => {
    await live.rt.plans.write("s1", EVIL_BODY)
    const { settled, ticks } = await ticksDuring(() => live.rt.queries.read("s1", { pattern: "(a+)+$" }))
    expect(settled.status).toBe("rejected")
    expect(settled.status === "rejected" && String(settled.reason)).toMatch(
      /pattern "\(a\+\)\+\$" took too long \(over \d+ ms on line \d+ of \.opencode\/plan\/[^)]+\.md\) and was abandoned/,
    )
    expect(ticks).toBeGreaterThan(0)
  })

  it("the same holds for a search over the workspace's recent plans", async () => {
    await live.rt.plans.write("s1", EVIL_BODY)
    const { settled, ticks } = await ticksDuring(() => live.rt.queries.read("s2", { recent: true, pattern: "(a+)+$" }))
    expect(settled.status === "rejected" && String(settled.reason)).toMatch(/pattern "\(a\+\)\+\$" took too long .* and was abandoned/)
    expect(ticks).toBeGreaterThan(0)
  })

  it("an ordinary pattern still finds its lines, on one plan and across recent plans; an invalid one is named", async () => {
    const { planPath } = await live.rt.plans.write("s1", PLAN_BODY)
    const lines = readFileSync(path.join(live.ws.dir, planPath), "utf8").split("\n")
    const numbered = (text: string) => `${lines.indexOf(text) + 1}: ${text}`
    expect(await live.rt.queries.read("s1", { pattern: "^- \\[ \\] \\d" })).toBe(
      [`${planPath}: 2 matching line(s)`, numbered("- [ ] 1. Write a failing test"), numbered("- [ ] 2. Raise the timeout")].join("\n"),
    )
    expect(await live.rt.queries.read("s1", { pattern: "no such words" })).toBe(`${planPath}: no line matches /no such words/`)
    expect(await live.rt.queries.read("s2", { recent: true, pattern: "Raise" })).toBe(`${planPath}:${numbered("- [ ] 2. Raise the timeout")}`)
    await expect(live.rt.queries.read("s1", { pattern: "([a-" })).rejects.toThrow(/^invalid regex pattern "\(\[a-": /)
  })
})
