import type { PluginInput } from "@opencode-ai/plugin"

// A session's messages as opencode lists them, reduced to what Forge reads of them.

export interface MessageInfo {
  id?: string
  role?: string
  agent?: string
  time?: { created?: number }
  cost?: number
  tokens?: { input?: number; output?: number; reasoning?: number }
}

export async function messagesOf(client: PluginInput["client"], sessionId: string): Promise<MessageInfo[]> {
  const result = await client.session.messages({ path: { id: sessionId } })
  if (result.error || result.data === undefined) throw new Error(`session.messages failed: ${JSON.stringify(result.error)}`)
  return result.data.map((m) => m.info as MessageInfo)
}

/** The session's user turns, oldest first: each user message's id and when it was sent. */
export async function userTurnsOf(client: PluginInput["client"], sessionId: string): Promise<{ id: string; at: number }[]> {
  return (await messagesOf(client, sessionId))
    .filter((m) => m.role === "user" && typeof m.id === "string" && typeof m.time?.created === "number")
    .map((m) => ({ id: m.id as string, at: m.time?.created as number }))
    .sort((a, b) => a.at - b.at)
}
