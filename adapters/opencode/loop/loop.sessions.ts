import type { PluginInput } from "@opencode-ai/plugin"
import type { LoopSessions } from "../../../services/loop/loop.ports"

// How a loop speaks to opencode: each pass in a fresh session of this workspace (so this plugin sees its events),
// briefed as the forge agent with synthetic text (the TUI never shows a brief as the user's message), and the user
// told in the session that started the loop without a model turn following (as the forge agent's, so a goal of that
// session still finds the forge agent its last speaker).

export function createLoopSessions(client: PluginInput["client"]): LoopSessions {
  return {
    async open(title) {
      const result = await client.session.create({ body: { title } })
      if (result.error || result.data === undefined) throw new Error(`session.create failed: ${JSON.stringify(result.error)}`)
      return result.data.id
    },
    async send(sessionId, text) {
      const result = await client.session.promptAsync({ path: { id: sessionId }, body: { agent: "forge", parts: [{ type: "text", text, synthetic: true }] } })
      if (result.error) throw new Error(`promptAsync failed: ${JSON.stringify(result.error)}`)
      await toast(client, text)
    },
    async stop(sessionId) {
      const result = await client.session.abort({ path: { id: sessionId } })
      if (result.error) throw new Error(`session.abort failed: ${JSON.stringify(result.error)}`)
    },
    async tell(sessionId, text) {
      const result = await client.session.promptAsync({ path: { id: sessionId }, body: { noReply: true, agent: "forge", parts: [{ type: "text", text }] } })
      if (result.error) throw new Error(`promptAsync failed: ${JSON.stringify(result.error)}`)
      await toast(client, text)
    },
    async isIdle(sessionId) {
      const result = await client.session.status()
      if (result.error || result.data === undefined) throw new Error(`session.status failed: ${JSON.stringify(result.error)}`)
      const status = result.data[sessionId]
      return status === undefined || status.type === "idle"
    },
  }
}

/** Where the loop stands, in the TUI's corner: a brief's or an ending's first line (a host without a TUI ignores it). */
async function toast(client: PluginInput["client"], text: string): Promise<void> {
  try {
    await client.tui.showToast({ body: { title: "Forge loop", message: text.split("\n", 1)[0]?.replace(/^\[forge:loop\]\s*/, "") ?? "", variant: "info" } })
  } catch {}
}
