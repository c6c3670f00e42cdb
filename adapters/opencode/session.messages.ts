import type { PluginInput } from "@opencode-ai/plugin"
import { isNoticePart } from "./forge.notice"

// A session's messages as opencode lists them, reduced to what Forge reads of them. An entry that does not read
// (no info object) is left out, never fatal for the whole list.

export interface MessageInfo {
  id?: string
  role?: string
  agent?: string
  time?: { created?: number }
  cost?: number
  tokens?: { input?: number; output?: number; reasoning?: number }
}

interface MessageEntry {
  info: MessageInfo
  parts?: unknown
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value)
}

async function entriesOf(client: PluginInput["client"], sessionId: string): Promise<MessageEntry[]> {
  const result = await client.session.messages({ path: { id: sessionId } })
  if (result.error || result.data === undefined) throw new Error(`session.messages failed: ${JSON.stringify(result.error)}`)
  const data: unknown = result.data
  if (!Array.isArray(data)) throw new Error(`session.messages failed: no message list (got ${data === null ? "null" : typeof data})`)
  return data.filter((m): m is MessageEntry => isRecord(m) && isRecord(m.info))
}

export async function messagesOf(client: PluginInput["client"], sessionId: string): Promise<MessageInfo[]> {
  return (await entriesOf(client, sessionId)).map((m) => m.info)
}

/**
 * A user-role message the user never wrote: every part is text meant only for the model (`synthetic`: a goal brief, a
 * job's wake, opencode's own "continue" after a compaction), Forge's notice beside it (forge.notice.ts) or a
 * compaction marker.
 */
function isMachineMade(parts: unknown): boolean {
  if (!Array.isArray(parts) || parts.length === 0) return false
  return parts.every((p) => isRecord(p) && ((p.type === "text" && p.synthetic === true) || isNoticePart(p) || p.type === "compaction"))
}

/**
 * The session's user turns, oldest first (ties in the listed order): each message the user sent, with its id and when
 * it was sent. Text meant only for the model never counts as one, so turn N is the user's N-th message as they see it.
 */
export async function userTurnsOf(client: PluginInput["client"], sessionId: string): Promise<{ id: string; at: number }[]> {
  const turns: { id: string; at: number }[] = []
  for (const { info, parts } of await entriesOf(client, sessionId)) {
    const at = info.time?.created
    if (info.role !== "user" || typeof info.id !== "string" || typeof at !== "number" || !Number.isFinite(at) || isMachineMade(parts)) continue
    turns.push({ id: info.id, at })
  }
  return turns.sort((a, b) => a.at - b.at)
}

/** opencode's summarizer: the agent of the assistant message a compaction writes. */
const COMPACTION_AGENT = "compaction"

/**
 * The agent that spoke last in the session, a compaction not counted: neither opencode's summary (its agent is the
 * summarizer) nor the user message that marks the compaction speaks for anyone. Undefined when nobody else spoke.
 */
export async function lastSpeakerOf(client: PluginInput["client"], sessionId: string): Promise<string | undefined> {
  const entries = await entriesOf(client, sessionId)
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]
    if (entry === undefined || entry.info.agent === COMPACTION_AGENT || isCompactionMarker(entry.parts)) continue
    return entry.info.agent
  }
  return undefined
}

function isCompactionMarker(parts: unknown): boolean {
  return Array.isArray(parts) && parts.length > 0 && parts.every((p) => isRecord(p) && p.type === "compaction")
}

/**
 * The text the session's last assistant message says to the reader: its text parts, Forge's synthetic ones left out;
 * "" when no assistant spoke. A part that does not read is skipped.
 */
export async function lastAssistantTextOf(client: PluginInput["client"], sessionId: string): Promise<string> {
  const last = (await entriesOf(client, sessionId)).filter((entry) => entry.info.role === "assistant").at(-1)
  if (last === undefined || !Array.isArray(last.parts)) return ""
  return last.parts
    .flatMap((part) => (isRecord(part) && part.type === "text" && part.synthetic !== true && typeof part.text === "string" ? [part.text] : []))
    .join("\n")
    .trim()
}
