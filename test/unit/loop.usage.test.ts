import { describe, expect, it } from "vitest"
import { newContext } from "../../machines/loop/loop.birth"
import type { LoopUsage } from "../../services/loop/loop.ports"
import { loopUsageText } from "../../services/loop/loop.usage"
import { inputFor } from "../model/loop.fixtures"

const spent = (input: number, output: number, cost: number): LoopUsage => ({ input, output, reasoning: 1, cacheRead: 2, cacheWrite: 0, cost })

describe("a loop's usage per role", () => {
  it("sums each role's sessions, names the ones of an older record apart, and says which could not be read", async () => {
    const context = {
      ...newContext(inputFor({})),
      sessions: ["ses_old", "ses_1", "ses_2", "ses_3", "ses_4"],
      roles: { ses_1: "coder", ses_2: "auditor", ses_3: "coder", ses_4: "post_action" } as const,
    }
    const usage: Record<string, LoopUsage> = {
      ses_old: spent(5, 5, 0),
      ses_1: spent(1_000, 200, 0.01),
      ses_2: spent(300, 30, 0.002),
      ses_3: spent(2_500, 400, 0.0305),
    }
    const lines = await loopUsageText(context, async (session) => {
      const found = usage[session]
      if (found === undefined) throw new Error("session.messages failed")
      return found
    })
    expect(lines).toEqual([
      "  earlier passes: 1 session, 5 tokens in, 5 out (reasoning 1, cache 2 read, 0 written), cost 0.0000",
      "  coder: 2 sessions, 3,500 tokens in, 600 out (reasoning 2, cache 4 read, 0 written), cost 0.0405",
      "  auditor: 1 session, 300 tokens in, 30 out (reasoning 1, cache 2 read, 0 written), cost 0.0020",
      "  post-action: 1 session, 0 tokens in, 0 out (reasoning 0, cache 0 read, 0 written), cost 0.0000; 1 not read (opencode could not list their messages)",
    ])
  })

  it("a loop that opened no session yet has no usage line", async () => {
    expect(await loopUsageText(newContext(inputFor({})), async () => spent(1, 1, 1))).toEqual([])
  })
})
