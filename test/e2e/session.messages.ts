// Reads a session's messages from an opencode HTTP server (`opencode serve`, or the one the TUI runs): the tool
// calls in the harness's shape, a progress line for each part not seen before, and the user messages split into
// what the TUI shows and what only the model sees. Serve and TUI mode share it.
import type { OpencodeClient, Part, ToolPart } from "@opencode-ai/sdk/client"
import { preview, type DriverContext, type ToolResult, type UserMessage } from "./opencode.driver"

export interface SessionReader {
  /** Reads the session's messages, prints the parts first seen now (as turn `n`'s), refreshes the results. */
  collect(client: OpencodeClient, sessionId: string, n: number): Promise<void>
  /** Every tool call as of the last `collect`, in order. */
  results(): ToolResult[]
  /** The user messages as of the last `collect`, in order. */
  userMessages(): UserMessage[]
  /** The turn during which the newest part was first seen (1 before any). */
  lastTurn(): number
}

function toolResult(part: ToolPart, turn: number): ToolResult {
  const state = part.state
  const output = state.status === "completed" ? state.output : state.status === "error" ? state.error : ""
  const title = state.status === "completed" || state.status === "running" ? (state.title ?? "") : ""
  const metadata = state.status === "pending" ? {} : (state.metadata ?? {})
  return { turn, server: 1, callId: part.callID, tool: part.tool, status: state.status, input: state.input, output, title, metadata }
}

function userMessage(parts: readonly Part[]): UserMessage {
  const texts = parts.filter((p) => p.type === "text")
  const join = (synthetic: boolean) =>
    texts
      .filter((p) => (p.synthetic === true) === synthetic)
      .map((p) => p.text)
      .join("\n")
  return { shown: join(false), hidden: join(true) }
}

export function createSessionReader(ctx: DriverContext): SessionReader {
  /**
   * Turn during whose collection a message part was first seen. Turns that ran at the same time are collected
   * together: the runner then corrects a tool call's turn (and server) from the model request that asked for it.
   */
  const partTurn = new Map<string, number>()
  /** The status each tool call was last printed with: a TUI turn can end (on its screen) while a call still runs. */
  const printed = new Map<string, string>()
  let results: ToolResult[] = []
  let users: UserMessage[] = []
  return {
    collect: async (client, sessionId, n) => {
      const res = await client.session.messages({ path: { id: sessionId } })
      if (!res.data) return
      const next: ToolResult[] = []
      const nextUsers: UserMessage[] = []
      for (const message of res.data) {
        if (message.info.role === "user") nextUsers.push(userMessage(message.parts))
        for (const part of message.parts) {
          const fresh = !partTurn.has(part.id)
          if (fresh) partTurn.set(part.id, n)
          const turn = partTurn.get(part.id) ?? n
          if (part.type === "tool") {
            const result = toolResult(part, turn)
            next.push(result)
            if (printed.get(part.id) !== result.status) ctx.say(`  tool ${part.tool} ${result.status}: ${preview(result.output)}`)
            printed.set(part.id, result.status)
          } else if (part.type === "text" && fresh && message.info.role === "assistant") {
            ctx.say(`  assistant: ${preview(part.text)}`)
          }
        }
      }
      results = next
      users = nextUsers
    },
    results: () => [...results],
    userMessages: () => [...users],
    lastTurn: () => (partTurn.size === 0 ? 1 : Math.max(...partTurn.values())),
  }
}

/** How many user messages the session holds (a TUI turn has been sent once there is one more). */
export async function countUserMessages(client: OpencodeClient, sessionId: string): Promise<number> {
  const res = await client.session.messages({ path: { id: sessionId } })
  return (res.data ?? []).filter((m) => m.info.role === "user").length
}
