// A scripted OpenAI-compatible chat server on 127.0.0.1. It answers the non-title requests with the scenario's
// model steps in order; title requests (no tools offered) get a fixed title, and the requests of opencode's
// compaction agent (no tools, its summarization prompt) a fixed summary. Once the script is exhausted it
// keeps answering a fixed text so opencode finishes its turn, and records the overrun so the scenario fails.
// Each opencode server of a scenario, or each of its workspaces, is a channel with its own base URL (`/v1`,
// `/server-2/v1`, ...): the requests of concurrent turns arrive in no fixed order, and the path is what tells the
// fake which server (or workspace) asked, so a step tagged with a `server` (or `workspace`) is served only there.
//
// Turns that run at the same time on one session (a group, see `startGroup`) need more: opencode's loop decides
// whether a turn is over by the session's newest messages, whichever process wrote them, so a loop may end before
// asking for its next step (the other turn's closing text is newest) or ask once more (the other turn's reply is
// still streaming). So during a group each server is served only the steps tagged with it, the first request of
// each server is held until every server of the group has asked (their first steps really run at the same time,
// and no loop can see the other turn finished before it asked), and a request beyond a server's tagged steps is
// answered with a closing text that is no step of the script and no failure.
import http from "node:http"
import type { AddressInfo } from "node:net"
import { stepChannel, stepSession, stepToolCalls, type ModelStep, type ToolCall } from "./scenario.schema"

export const EXHAUSTED_TEXT = "(e2e model script exhausted)"
/** The answer to a request of a concurrent turn whose server has no tagged step left. */
export const CLOSING_TEXT = "(e2e concurrent turn done)"
/** The summary every compaction request gets. */
export const SUMMARY_TEXT = "(e2e compaction summary)"
/** opencode's compaction agent, told apart from the title agent (neither is offered tools) by its system prompt. */
const COMPACTION_SYSTEM = /context summarization agent/i
/** The longest the first request of a concurrent turn is held for the others of its group. */
const GROUP_BARRIER_MS = 30_000

export interface ModelRequestRecord {
  /** 1-based count of scripted requests. 0 for title and compaction requests and the closing requests of concurrent turns. */
  index: number
  /** Turn (1-based) that was running on the asking server when the request arrived. */
  turn: number
  /** The opencode server (1-based) that asked, told apart by its base URL. */
  server: number
  /** The workspace (1-based) that asked, in a scenario with several; else 1. */
  workspace: number
  /**
   * The session that asked, numbered on its server (workspace) in the order sessions first asked for a step: 1 is the
   * scenario's own, which asks first. 0 for title and compaction requests and for a request naming no session.
   */
  session: number
  /** `closing`: a request of a concurrent turn beyond its server's tagged steps (answered with CLOSING_TEXT). */
  kind: "title" | "compaction" | "step" | "exhausted" | "closing"
  reply: { text: string } | { tools: ToolCall[] }
  /** The ids of the tool calls of the reply (empty for a text): a tool result is traced back to its request by them. */
  callIds: string[]
  /** Role of the last message opencode sent ("user", "tool", ...). */
  lastRole: string
  /** Text of the last user message (a slash command arrives here expanded from its template). */
  userText: string
  /** Text of the system messages, joined. */
  systemText: string
  /** The request's whole conversation as JSON (tool calls with their arguments included). */
  historyText: string
  /** Names of the tools offered to the model. */
  tools: string[]
  /** The model id the request asked for (the provider's model key). */
  model: string
  /** The request body as sent (parsed JSON): provider options such as `reasoning_effort` ride here. */
  body: unknown
}

export interface FakeLlm {
  url: string
  requests: ModelRequestRecord[]
  /** Steps not served yet. */
  remaining(): number
  /** Turn number stamped on the next requests of `server` (default 1). */
  setTurn(turn: number, server?: number): void
  /**
   * Turns on `servers` start at the same time: until `endGroup`, each of these servers is served only steps tagged
   * with it, its first request is held until every one of them has asked (at most `barrierMs`), and requests beyond
   * its tagged steps get CLOSING_TEXT.
   */
  startGroup(servers: readonly number[], barrierMs?: number): void
  /** Ends the group; the servers that had not asked when the barrier gave up waiting (empty when all had). */
  endGroup(): number[]
  close(): Promise<void>
}

interface ChatMessage {
  role?: string
  content?: unknown
}

interface ChatBody {
  model?: string
  stream?: boolean
  tools?: { function?: { name?: string } }[]
  messages?: ChatMessage[]
}

function messageText(m: ChatMessage | undefined): string {
  if (!m) return ""
  if (typeof m.content === "string") return m.content
  if (Array.isArray(m.content))
    return m.content.map((c: unknown) => (c && typeof c === "object" && "text" in c && typeof c.text === "string" ? c.text : "")).join("")
  return ""
}

/** The base URL server `server` (1-based) is configured with; server 1 keeps the plain `/v1`. */
export function serverLlmUrl(url: string, server: number): string {
  return server === 1 ? url : url.replace(/\/v1$/, `/server-${server}/v1`)
}

/** The server a chat request came from, by its path; undefined for a path that is no chat endpoint. */
function requestServer(url: string | undefined): number | undefined {
  const m = /^(?:\/server-(\d+))?\/v1\/chat\/completions(?:\?.*)?$/.exec(url ?? "")
  if (!m) return undefined
  return m[1] === undefined ? 1 : Number(m[1])
}

interface Group {
  servers: Set<number>
  /** Servers whose first request has arrived. */
  arrived: Set<number>
  /** Servers that had not asked when the barrier gave up. */
  missing: number[]
  released: Promise<void>
  release(): void
}

/**
 * Starts the fake. `channels` says what the base URLs tell apart: the scenario's servers (the default), or its
 * workspaces (records then carry the channel as their `workspace`, on server 1).
 */
export async function startFakeLlm(
  steps: readonly ModelStep[],
  onRequest: (record: ModelRequestRecord) => void = () => {},
  channels: "servers" | "workspaces" = "servers",
): Promise<FakeLlm> {
  const requests: ModelRequestRecord[] = []
  // `steps` may still be filled in after the start (placeholders are expanded once the sandbox exists).
  const used: boolean[] = []
  let served = 0
  /** The turn last started on each server; a server that never ran one reports the latest turn of any. */
  const turns = new Map<number, number>()
  let latestTurn = 0
  let group: Group | undefined
  /** Per channel, each session id's number: the order of its first step request. */
  const sessions = new Map<number, Map<string, number>>()
  const sessionNumber = (channel: number, id: string | undefined): number => {
    if (id === undefined) return 0
    const known = sessions.get(channel) ?? new Map<string, number>()
    sessions.set(channel, known)
    if (!known.has(id)) known.set(id, known.size + 1)
    return known.get(id) ?? 0
  }

  const choose = (body: ChatBody, server: number, sessionId: string | undefined): ModelRequestRecord => {
    const turn = turns.get(server) ?? latestTurn
    const channel = channels === "servers" ? { server, workspace: 1 } : { server: 1, workspace: server }
    const origin = { ...channel, session: 0 }
    const messages = body.messages ?? []
    const seen = {
      lastRole: messages.at(-1)?.role ?? "?",
      userText: messageText(messages.filter((m) => m.role === "user").at(-1)),
      systemText: messages
        .filter((m) => m.role === "system")
        .map(messageText)
        .join("\n"),
      historyText: JSON.stringify(messages),
      tools: (body.tools ?? []).map((t) => t.function?.name ?? "?"),
      model: body.model ?? "?",
      body: body as unknown,
    }
    if (seen.tools.length === 0 && COMPACTION_SYSTEM.test(seen.systemText))
      return { index: 0, turn, ...origin, kind: "compaction", reply: { text: SUMMARY_TEXT }, callIds: [], ...seen }
    if (seen.tools.length === 0) return { index: 0, turn, ...origin, kind: "title", reply: { text: "E2E session" }, callIds: [], ...seen }
    const grouped = group?.servers.has(server) === true
    origin.session = sessionNumber(server, sessionId)
    // The first step not served yet that is tagged with the asking server, or untagged outside a group, and tagged
    // with the asking session or with none.
    const at = steps.findIndex(
      (s, i) => !used[i] && (stepChannel(s) ?? (grouped ? undefined : server)) === server && (stepSession(s) ?? origin.session) === origin.session,
    )
    const step = steps[at]
    if (step === undefined && grouped) return { index: 0, turn, ...origin, kind: "closing", reply: { text: CLOSING_TEXT }, callIds: [], ...seen }
    served += 1
    if (step === undefined) return { index: served, turn, ...origin, kind: "exhausted", reply: { text: EXHAUSTED_TEXT }, callIds: [], ...seen }
    used[at] = true
    const tools = stepToolCalls(step)
    const reply = tools ? { tools } : { text: Array.isArray(step) ? "" : (step.text ?? "") }
    const id = Math.random().toString(36).slice(2, 10)
    const callIds = (tools ?? []).map((_, i) => `call_${id}_${i}`)
    return { index: served, turn, ...origin, kind: "step", reply, callIds, ...seen }
  }

  /** Holds the first request of each server of the group until all of them have asked. */
  const arrive = (server: number): Promise<void> => {
    const g = group
    if (!g?.servers.has(server) || g.arrived.has(server)) return Promise.resolve()
    g.arrived.add(server)
    if (g.arrived.size === g.servers.size) g.release()
    return g.released
  }

  const server = http.createServer((req, res) => {
    let raw = ""
    req.on("data", (d: Buffer) => (raw += d.toString("utf8")))
    req.on("end", () => {
      const server = requestServer(req.url)
      if (req.method !== "POST" || server === undefined) {
        res.writeHead(404)
        res.end()
        return
      }
      let body: ChatBody
      try {
        body = JSON.parse(raw || "{}") as ChatBody
      } catch {
        res.writeHead(400)
        res.end()
        return
      }
      // Title requests (no tools offered) are no step of a turn and never wait for the group.
      const offersTools = (body.tools ?? []).length > 0
      void (offersTools ? arrive(server) : Promise.resolve())
        .then(() => {
          // opencode names the asking session in a header of every request to a provider of this kind.
          const session = req.headers["x-session-affinity"]
          const record = choose(body, server, typeof session === "string" && session !== "" ? session : undefined)
          requests.push(record)
          onRequest(record)
          respond(res, body, record)
        })
        .catch((err: unknown) => res.destroy(err instanceof Error ? err : new Error(String(err))))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    remaining: () => steps.filter((_, i) => !used[i]).length,
    startGroup: (servers, barrierMs = GROUP_BARRIER_MS) => {
      let resolve: () => void = () => {}
      const released = new Promise<void>((r) => (resolve = r))
      const g: Group = {
        servers: new Set(servers),
        arrived: new Set(),
        missing: [],
        released,
        release: () => {
          clearTimeout(timer)
          resolve()
        },
      }
      const timer = setTimeout(() => {
        g.missing = [...g.servers].filter((s) => !g.arrived.has(s))
        resolve()
      }, barrierMs)
      group = g
    },
    endGroup: () => {
      const g = group
      group = undefined
      if (!g) return []
      g.release()
      return g.missing
    },
    setTurn: (t, server = 1) => {
      turns.set(server, t)
      latestTurn = t
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

function respond(res: http.ServerResponse, body: ChatBody, { reply, callIds }: ModelRequestRecord): void {
  const id = `chatcmpl-${Math.random().toString(36).slice(2, 10)}`
  const created = Math.floor(Date.now() / 1000)
  const model = body.model ?? "fake-model"
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }
  const tools = "tools" in reply ? reply.tools : undefined
  const finish = tools ? "tool_calls" : "stop"
  const calls = tools?.map((t, index) => ({ index, id: callIds[index] ?? `call_${index}`, name: t.tool, arguments: JSON.stringify(t.args) }))

  if (!body.stream) {
    const message = calls
      ? {
          role: "assistant",
          content: null,
          tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })),
        }
      : { role: "assistant", content: "text" in reply ? reply.text : "" }
    res.writeHead(200, { "content-type": "application/json" })
    res.end(JSON.stringify({ id, object: "chat.completion", created, model, choices: [{ index: 0, message, finish_reason: finish }], usage }))
    return
  }

  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices, ...extra })}\n\n`)
  const delta = (d: Record<string, unknown>, finish_reason: string | null = null) => chunk([{ index: 0, delta: d, finish_reason }])
  if (calls) {
    delta({ role: "assistant", content: null })
    for (const c of calls) {
      delta({ tool_calls: [{ index: c.index, id: c.id, type: "function", function: { name: c.name, arguments: "" } }] })
      delta({ tool_calls: [{ index: c.index, function: { arguments: c.arguments } }] })
    }
  } else {
    delta({ role: "assistant", content: "text" in reply ? reply.text : "" })
  }
  delta({}, finish)
  chunk([], { usage })
  res.end("data: [DONE]\n\n")
}
