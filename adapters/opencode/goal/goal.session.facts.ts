import type { PluginInput } from "@opencode-ai/plugin"
import type { GoalPrompter, SessionFacts } from "../../../services/goal/goal.ports"
import { noticeParts } from "../forge.notice"
import { lastSpeakerOf, messagesOf } from "../session.messages"

// What the goal loop asks opencode about a session, and how it speaks into one.

export function createSessionFacts(client: PluginInput["client"], hasDraftPlan: (sessionId: string) => Promise<boolean>): SessionFacts {
  return {
    // The agent of the session's last message: whoever the user last spoke to (Tab switches it) or last answered. A
    // compaction changes nothing about who drives: its summary and its marker are not the session's speaker.
    speaker: (sessionId) => lastSpeakerOf(client, sessionId),
    // Spent tokens are what the model read and wrote (input, output, reasoning); cached reads are not spent again.
    async spend(sessionId, since) {
      let cost = 0
      let tokens = 0
      for (const m of await messagesOf(client, sessionId)) {
        if (m.role !== "assistant" || (m.time?.created ?? 0) < since) continue
        cost += m.cost ?? 0
        tokens += (m.tokens?.input ?? 0) + (m.tokens?.output ?? 0) + (m.tokens?.reasoning ?? 0)
      }
      return { cost, tokens }
    },
    hasDraftPlan,
    // Only sessions that are not idle are listed.
    async isIdle(sessionId) {
      const result = await client.session.status()
      if (result.error || result.data === undefined) throw new Error(`session.status failed: ${JSON.stringify(result.error)}`)
      return result.data[sessionId] === undefined || result.data[sessionId].type === "idle"
    },
  }
}

/**
 * The loop's prompts go to the forge agent and are for the model: synthetic, with Forge's notice beside it, so the
 * transcript shows why the turn started (forge.notice.ts) and never the brief as the user's words.
 */
export function createGoalPrompter(client: PluginInput["client"]): GoalPrompter {
  return {
    async send(sessionId, text) {
      const result = await client.session.promptAsync({ path: { id: sessionId }, body: { agent: "forge", parts: noticeParts(text) } })
      if (result.error) throw new Error(`promptAsync failed: ${JSON.stringify(result.error)}`)
    },
  }
}
