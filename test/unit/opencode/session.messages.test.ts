import type { PluginInput } from "@opencode-ai/plugin"
import { describe, expect, it } from "vitest"
import { lastAssistantTextOf, messagesOf, userTurnsOf } from "../../../adapters/opencode/session.messages"
import { createSessionFacts } from "../../../adapters/opencode/goal/goal.session.facts"
import { noticeParts } from "../../../adapters/opencode/forge.notice"

// The session's messages as opencode lists them: what Forge reads of them, on odd and hostile lists too.

function clientOf(data: unknown, error?: unknown): PluginInput["client"] {
  return { session: { messages: async () => ({ data, error }) } } as unknown as PluginInput["client"]
}

const user = (id: string, created: unknown, parts: unknown[] = [{ type: "text", text: "hi" }]) => ({ info: { id, role: "user", time: { created } }, parts })

describe("a session's user turns", () => {
  it("lists the user's messages oldest first, whatever order they come in (ties keep the listed order)", async () => {
    const client = clientOf([user("m3", 30), { info: { id: "a1", role: "assistant", time: { created: 15 } }, parts: [] }, user("m1", 10), user("m2", 10)])
    expect(await userTurnsOf(client, "s")).toEqual([
      { id: "m1", at: 10 },
      { id: "m2", at: 10 },
      { id: "m3", at: 30 },
    ])
  })

  it("counts no text meant only for the model: a goal brief, a job wake, a compaction, Forge's notices are no user turn", async () => {
    const client = clientOf([
      user("m1", 10),
      user("brief", 20, [{ type: "text", text: "[forge:goal-continue] ...", synthetic: true }]),
      user("noticed brief", 21, noticeParts("[forge:goal-continue] Goal g.md — continuation turn 2 of 5.\nObjective: …")),
      user("loop ending", 22, noticeParts("[forge:loop] Loop x completed.\n1 of 1 sections done in 3 passes.", true)),
      // An ignored part with a notice mark of something else is the user's, as any ignored part without the mark.
      user("not forge's", 23, [{ type: "text", text: "mine", ignored: true, metadata: { forge: "other" } }]),
      user("compaction", 25, [{ type: "compaction", auto: true }]),
      // A /goal command: its text is for the model, the part the user sees is theirs.
      user("command", 30, [
        { type: "text", text: "[forge:goal] ...", synthetic: true },
        { type: "text", text: "/goal green", ignored: true },
      ]),
      user("file", 40, [
        { type: "text", text: "Called the Read tool", synthetic: true },
        { type: "file", url: "file:///a.ts" },
      ]),
    ])
    expect((await userTurnsOf(client, "s")).map((t) => t.id)).toEqual(["m1", "not forge's", "command", "file"])
  })

  it("skips entries it cannot read instead of failing the whole list", async () => {
    const client = clientOf([
      null,
      { parts: [] },
      { info: null },
      user("nan", Number.NaN),
      user("inf", Number.POSITIVE_INFINITY),
      user("string-time", "10"),
      { info: { role: "user", time: { created: 5 } }, parts: [] },
      user("m1", 10),
      { info: { id: "m2", role: "user", time: { created: 20 } } },
    ])
    expect(await userTurnsOf(client, "s")).toEqual([
      { id: "m1", at: 10 },
      { id: "m2", at: 20 },
    ])
    expect((await messagesOf(client, "s")).map((m) => m.id)).toEqual(["nan", "inf", "string-time", undefined, "m1", "m2"])
  })

  it("names what went wrong when opencode answers with no list", async () => {
    await expect(userTurnsOf(clientOf(undefined, { name: "NotFoundError" }), "s")).rejects.toThrow(/^session\.messages failed: .*NotFoundError/)
    await expect(userTurnsOf(clientOf({ items: [] }), "s")).rejects.toThrow(/^session\.messages failed: no message list \(got object\)$/)
  })
})

describe("who spoke last, for the goal loop", () => {
  const said = (id: string, role: string, agent: string, parts: unknown[] = [{ type: "text", text: "..." }]) => ({ info: { id, role, agent }, parts })

  it("after opencode's automatic compaction: the agent that spoke before it, not the compaction summarizer", async () => {
    const facts = createSessionFacts(
      clientOf([
        said("u1", "user", "forge"),
        said("a1", "assistant", "forge"),
        said("c1", "user", "forge", [{ type: "compaction", auto: true }]),
        said("s1", "assistant", "compaction"),
      ]),
      async () => false,
    )
    expect(await facts.speaker("s")).toBe("forge")
  })

  it("another agent the user talked to before the compaction still parks the loop; a session of summaries alone has none", async () => {
    const before = [said("u1", "user", "build"), said("a1", "assistant", "build"), said("s1", "assistant", "compaction")]
    expect(await createSessionFacts(clientOf(before), async () => false).speaker("s")).toBe("build")
    expect(await createSessionFacts(clientOf([said("s1", "assistant", "compaction")]), async () => false).speaker("s")).toBeUndefined()
  })
})

describe("the last assistant message's text", () => {
  const assistant = (parts: unknown) => ({ info: { role: "assistant" }, parts })
  it("joins its text parts, leaving out Forge's synthetic ones and what does not read", async () => {
    const client = clientOf([
      assistant([{ type: "text", text: "an earlier answer" }]),
      user("m1", 10),
      assistant([
        { type: "text", text: " One bug: x.ts:3. " },
        { type: "tool", tool: "read" },
        { type: "text", text: "hidden", synthetic: true },
        { type: "text", text: 7 },
        null,
        { type: "text", text: "Done." },
      ]),
    ])
    expect(await lastAssistantTextOf(client, "s")).toBe("One bug: x.ts:3. \nDone.")
  })

  it("is empty when no assistant spoke or its parts are no list", async () => {
    expect(await lastAssistantTextOf(clientOf([user("m1", 10)]), "s")).toBe("")
    expect(await lastAssistantTextOf(clientOf([assistant("garbage")]), "s")).toBe("")
  })
})
