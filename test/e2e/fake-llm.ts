// A scripted OpenAI-compatible chat server on 127.0.0.1. It answers the non-title requests with the scenario's
// model steps in order; title requests (no tools offered) get a fixed title. Once the script is exhausted it
// keeps answering a fixed text so opencode finishes its turn, and records the overrun so the scenario fails.
import http from "node:http"
import type { AddressInfo } from "node:net"
import { stepToolCalls, type ModelStep, type ToolCall } from "./scenario.schema"

export const EXHAUSTED_TEXT = "(e2e model script exhausted)"

export interface ModelRequestRecord {
  /** 1-based count of scripted (non-title) requests. 0 for title requests. */
  index: number
  /** Turn (1-based) that was running when the request arrived. */
  turn: number
  kind: "title" | "step" | "exhausted"
  reply: { text: string } | { tools: ToolCall[] }
  /** Role of the last message opencode sent ("user", "tool", ...). */
  lastRole: string
  /** Text of the last user message (a slash command arrives here expanded from its template). */
  userText: string
  /** Text of the system messages, joined. */
  systemText: string
  /** Names of the tools offered to the model. */
  tools: string[]
  /** The model id the request asked for (the provider's model key). */
  model: string
}

export interface FakeLlm {
  url: string
  requests: ModelRequestRecord[]
  /** Steps not served yet. */
  remaining(): number
  /** Turn number stamped on the next requests. */
  setTurn(turn: number): void
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

export async function startFakeLlm(steps: readonly ModelStep[], onRequest: (record: ModelRequestRecord) => void = () => {}): Promise<FakeLlm> {
  const requests: ModelRequestRecord[] = []
  let next = 0
  let served = 0
  let turn = 0

  const choose = (body: ChatBody): ModelRequestRecord => {
    const messages = body.messages ?? []
    const seen = {
      lastRole: messages.at(-1)?.role ?? "?",
      userText: messageText(messages.filter((m) => m.role === "user").at(-1)),
      systemText: messages
        .filter((m) => m.role === "system")
        .map(messageText)
        .join("\n"),
      tools: (body.tools ?? []).map((t) => t.function?.name ?? "?"),
      model: body.model ?? "?",
    }
    if (seen.tools.length === 0) return { index: 0, turn, kind: "title", reply: { text: "E2E session" }, ...seen }
    served += 1
    const step = steps[next]
    if (step === undefined) return { index: served, turn, kind: "exhausted", reply: { text: EXHAUSTED_TEXT }, ...seen }
    next += 1
    const tools = stepToolCalls(step)
    const reply = tools ? { tools } : { text: Array.isArray(step) ? "" : (step.text ?? "") }
    return { index: served, turn, kind: "step", reply, ...seen }
  }

  const server = http.createServer((req, res) => {
    let raw = ""
    req.on("data", (d: Buffer) => (raw += d.toString("utf8")))
    req.on("end", () => {
      if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
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
      const record = choose(body)
      requests.push(record)
      onRequest(record)
      respond(res, body, record.reply)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    remaining: () => steps.length - next,
    setTurn: (t) => (turn = t),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

function respond(res: http.ServerResponse, body: ChatBody, reply: ModelRequestRecord["reply"]): void {
  const id = `chatcmpl-${Math.random().toString(36).slice(2, 10)}`
  const created = Math.floor(Date.now() / 1000)
  const model = body.model ?? "fake-model"
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }
  const tools = "tools" in reply ? reply.tools : undefined
  const finish = tools ? "tool_calls" : "stop"
  const calls = tools?.map((t, index) => ({ index, id: `call_${id}_${index}`, name: t.tool, arguments: JSON.stringify(t.args) }))

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
