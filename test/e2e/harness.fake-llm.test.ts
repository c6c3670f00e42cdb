import { afterEach, describe, expect, it } from "vitest"
import { type FakeLlm, startFakeLlm } from "./fake-llm"
import type { ModelStep } from "./scenario.schema"

// The fake model's choice of step, asked over HTTP as opencode asks it: a session the plugin opens (a loop's pass)
// asks while the scenario's own session may still be asking, so a step tagged with a session waits for that session.

let fake: FakeLlm | undefined
afterEach(async () => {
  await fake?.close()
  fake = undefined
})

/** One chat request offering a tool, from the given session (as opencode names it in its header). */
async function ask(url: string, session?: string): Promise<unknown> {
  const headers: Record<string, string> = { "content-type": "application/json" }
  if (session !== undefined) headers["x-session-affinity"] = session
  const body = { model: "fake-model", stream: false, messages: [{ role: "user", content: "go" }], tools: [{ type: "function", function: { name: "read" } }] }
  const response = await fetch(`${url}/chat/completions`, { method: "POST", headers, body: JSON.stringify(body) })
  const reply = (await response.json()) as { choices: { message: { content: string | null; tool_calls?: { function: { name: string } }[] } }[] }
  const { message } = reply.choices[0] ?? { message: { content: null } }
  return message.tool_calls?.[0]?.function.name ?? message.content
}

describe("the fake model's steps", () => {
  it("numbers sessions in the order they first ask, and serves a tagged step only to its session", async () => {
    const steps: ModelStep[] = [{ tool: "loop_start" }, { text: "Loop started.", session: 1 }, { tool: "forge_write" }, { text: "Handed off.", session: 2 }]
    fake = await startFakeLlm(steps)
    expect(await ask(fake.url, "ses_host")).toBe("loop_start")
    // The pass asks before the scenario's session: it skips the step tagged for session 1.
    expect(await ask(fake.url, "ses_pass")).toBe("forge_write")
    expect(await ask(fake.url, "ses_pass")).toBe("Handed off.")
    expect(await ask(fake.url, "ses_host")).toBe("Loop started.")
    expect(fake.requests.map((r) => [r.index, r.session])).toEqual([
      [1, 1],
      [2, 2],
      [3, 2],
      [4, 1],
    ])
    expect(fake.remaining()).toBe(0)
  })

  it("serves untagged steps to any session in order, and only those to a request that names no session", async () => {
    fake = await startFakeLlm([{ text: "tagged", session: 1 }, { text: "first" }])
    expect(await ask(fake.url)).toBe("first")
    expect(fake.requests[0]?.session).toBe(0)
    expect(await ask(fake.url, "ses_a")).toBe("tagged")
  })
})
