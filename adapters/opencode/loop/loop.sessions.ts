import type { PluginInput } from "@opencode-ai/plugin"
import type { LoopSessions, LoopUsage } from "../../../services/loop/loop.ports"
import { noticeParts } from "../forge.notice"

// How a loop speaks to opencode: each pass in a fresh session of this workspace (so this plugin sees its events),
// briefed as the forge agent with synthetic text and Forge's notice of it (forge.notice.ts: the TUI shows the notice,
// never the brief, as the turn's start), and the user told in the session that started the loop without a model turn
// following (as the forge agent's, so a goal of that session still finds the forge agent its last speaker).

/** How far down a pass's subagents are looked for (when it hands off, and for its usage). */
const MAX_SUBAGENT_DEPTH = 4

export function createLoopSessions(client: PluginInput["client"]): LoopSessions {
  /** A session's subagents, and theirs, a few levels down (a task's task). */
  const descendants = async (sessionId: string): Promise<string[]> => {
    const found: string[] = []
    let level = [sessionId]
    for (let depth = 0; depth < MAX_SUBAGENT_DEPTH && level.length > 0; depth++) {
      const next: string[] = []
      for (const parent of level) {
        const children = await client.session.children({ path: { id: parent } })
        if (children.error || children.data === undefined) throw new Error(`session.children failed: ${JSON.stringify(children.error)}`)
        next.push(...children.data.map((child) => child.id))
      }
      found.push(...next)
      level = next
    }
    return found
  }
  return {
    async open(title) {
      const result = await client.session.create({ body: { title } })
      if (result.error || result.data === undefined) throw new Error(`session.create failed: ${JSON.stringify(result.error)}`)
      return result.data.id
    },
    async send(sessionId, text) {
      const result = await client.session.promptAsync({ path: { id: sessionId }, body: { agent: "forge", parts: noticeParts(text) } })
      if (result.error) throw new Error(`promptAsync failed: ${JSON.stringify(result.error)}`)
    },
    async stop(sessionId) {
      const result = await client.session.abort({ path: { id: sessionId } })
      if (result.error) throw new Error(`session.abort failed: ${JSON.stringify(result.error)}`)
    },
    async tell(sessionId, text) {
      const result = await client.session.promptAsync({ path: { id: sessionId }, body: { noReply: true, agent: "forge", parts: noticeParts(text, true) } })
      if (result.error) throw new Error(`promptAsync failed: ${JSON.stringify(result.error)}`)
    },
    async busyUnder(sessionId) {
      const status = await client.session.status()
      if (status.error || status.data === undefined) throw new Error(`session.status failed: ${JSON.stringify(status.error)}`)
      const working = new Set(
        Object.entries(status.data)
          .filter(([, s]) => s.type !== "idle")
          .map(([id]) => id),
      )
      if (working.size === 0) return []
      return (await descendants(sessionId)).filter((id) => working.has(id))
    },
    async usage(sessionId) {
      const total: LoopUsage = { input: 0, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0, cost: 0 }
      for (const id of [sessionId, ...(await descendants(sessionId))]) {
        const messages = await client.session.messages({ path: { id } })
        if (messages.error || messages.data === undefined) throw new Error(`session.messages failed: ${JSON.stringify(messages.error)}`)
        for (const { info } of messages.data) {
          if (info.role !== "assistant") continue
          total.input += info.tokens.input
          total.output += info.tokens.output
          total.reasoning += info.tokens.reasoning
          total.cacheRead += info.tokens.cache.read
          total.cacheWrite += info.tokens.cache.write
          total.cost += info.cost
        }
      }
      return total
    },
    async isIdle(sessionId) {
      const result = await client.session.status()
      if (result.error || result.data === undefined) throw new Error(`session.status failed: ${JSON.stringify(result.error)}`)
      const status = result.data[sessionId]
      return status === undefined || status.type === "idle"
    },
  }
}
