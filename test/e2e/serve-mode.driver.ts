// Serve mode: one `opencode serve` on a free 127.0.0.1 port, driven with the v1 SDK. All turns share one
// session; a restart turn stops the server and starts a new one on the same HOME and project. Permission asks
// are answered from the scenario's `permissions` list, matched in order by permission key.
import { createOpencodeClient, type OpencodeClient, type Part } from "@opencode-ai/sdk/client"
import { z } from "zod"
import { preview, turnLabel, type Driver, type DriverContext, type ToolResult } from "./opencode.driver"
import { freePort, killStrays, sleep, spawnTracked, withTimeout, type Spawned } from "./processes"
import type { Turn } from "./scenario.schema"

const START_TIMEOUT_MS = 60_000

const permissionAsked = z.looseObject({
  type: z.literal("permission.asked"),
  properties: z.looseObject({
    id: z.string(),
    sessionID: z.string(),
    permission: z.string(),
    patterns: z.array(z.string()).optional(),
  }),
})

const sessionEvent = z.looseObject({
  type: z.enum(["session.idle", "session.status"]),
  properties: z.looseObject({ sessionID: z.string(), status: z.looseObject({ type: z.string() }).optional() }),
})

interface Server {
  proc: Spawned
  client: OpencodeClient
  events: AbortController
}

export function createServeModeDriver(ctx: DriverContext): Driver {
  const { scenario, sandbox } = ctx
  const replies = scenario.permissions.map((p) => ({ ...p, used: false }))
  const idleWaiters = new Set<(sessionId: string) => void>()
  const partTurn = new Map<string, number>()
  let results: ToolResult[] = []
  let server: Server | undefined
  let sessionId: string | undefined
  let stderrAll = ""

  const answerPermission = async (client: OpencodeClient, ev: z.infer<typeof permissionAsked>["properties"]) => {
    const reply = replies.find((r) => !r.used && r.permission === ev.permission)
    const patterns = (ev.patterns ?? []).join(", ")
    if (reply) {
      reply.used = true
      ctx.say(`  permission ${ev.permission} (${patterns}) → ${reply.reply}`)
    } else {
      ctx.say(`  permission ${ev.permission} (${patterns}) → reject (no reply listed)`)
      ctx.check(`permission ask "${ev.permission}" has a scripted reply`, false, `patterns: ${patterns || "(none)"}`)
    }
    const res = await client.postSessionIdPermissionsPermissionId({
      path: { id: ev.sessionID, permissionID: ev.id },
      body: { response: reply?.reply ?? "reject" },
    })
    if (res.error) ctx.check(`reply to permission ask "${ev.permission}"`, false, JSON.stringify(res.error))
  }

  /** Handles the event stream until `signal` aborts; `connected` is called at the first event (server.connected). */
  const consumeEvents = async (client: OpencodeClient, signal: AbortSignal, connected: () => void) => {
    try {
      const sse = await client.event.subscribe({ signal, sseMaxRetryAttempts: 0 })
      for await (const raw of sse.stream as AsyncIterable<unknown>) {
        connected()
        const asked = permissionAsked.safeParse(raw)
        if (asked.success) {
          void answerPermission(client, asked.data.properties).catch((err: unknown) =>
            ctx.check(`reply to permission ask "${asked.data.properties.permission}"`, false, String(err)),
          )
          continue
        }
        const session = sessionEvent.safeParse(raw)
        if (session.success && (session.data.type === "session.idle" || session.data.properties.status?.type === "idle"))
          for (const waiter of idleWaiters) waiter(session.data.properties.sessionID)
      }
    } catch (err) {
      if (!signal.aborted) ctx.say(`  event stream ended: ${String(err)}`)
    }
  }

  const start = async (): Promise<boolean> => {
    const port = await freePort()
    let resolveUrl: (url: string) => void = () => {}
    const listening = new Promise<string>((resolve) => (resolveUrl = resolve))
    let out = ""
    const proc = spawnTracked(ctx.bin, ["serve", "--hostname", "127.0.0.1", "--port", String(port), "--log-level", scenario.logLevel], {
      cwd: sandbox.project,
      env: sandbox.env,
      onStdout: (chunk) => {
        out += chunk
        const m = /listening on (http:\/\/\S+)/.exec(out)
        if (m?.[1]) resolveUrl(m[1])
      },
    })
    let url: string
    try {
      url = await withTimeout(
        Promise.race([listening, proc.exited.then((code) => Promise.reject(new Error(`opencode serve exited with ${code}`)))]),
        START_TIMEOUT_MS,
        `opencode serve did not listen within ${START_TIMEOUT_MS} ms`,
      )
    } catch (err) {
      await proc.stop()
      stderrAll += proc.stderr()
      ctx.check("opencode serve started", false, (err as Error).message)
      return false
    }
    ctx.say(`  server ${url}`)
    const client = createOpencodeClient({ baseUrl: url, directory: sandbox.project })
    const events = new AbortController()
    server = { proc, client, events }
    // Subscribe before the first prompt so no permission ask can be missed.
    let onConnected: () => void = () => {}
    const connected = new Promise<void>((resolve) => (onConnected = resolve))
    void consumeEvents(client, events.signal, onConnected)
    try {
      await withTimeout(connected, START_TIMEOUT_MS, "no server.connected event")
    } catch (err) {
      ctx.check("event stream connected", false, (err as Error).message)
      return false
    }
    if (!sessionId) {
      const created = await client.session.create({ body: { title: scenario.name ?? "e2e" } })
      if (!created.data) {
        ctx.check("session created", false, JSON.stringify(created.error))
        return false
      }
      sessionId = created.data.id
    }
    return true
  }

  /** `restart`: stop opencode alone, as a real restart does; else its whole tree. */
  const stopServer = async (how: "all" | "restart" = "all") => {
    const s = server
    server = undefined
    if (!s) return
    s.events.abort()
    await (how === "restart" ? s.proc.stopProcess() : s.proc.stop())
    stderrAll += s.proc.stderr()
  }

  /** Starts listening for the session's next idle event; `cancel` stops listening. */
  const nextIdle = (id: string) => {
    let done: () => void = () => {}
    const promise = new Promise<void>((resolve) => (done = resolve))
    const waiter = (sid: string) => {
      if (sid !== id) return
      idleWaiters.delete(waiter)
      done()
    }
    idleWaiters.add(waiter)
    return { promise, cancel: () => idleWaiters.delete(waiter) }
  }

  /** Reads the session's messages, prints what is new, and refreshes the tool results. */
  const collect = async (n: number) => {
    if (!server || !sessionId) return
    const res = await server.client.session.messages({ path: { id: sessionId } })
    if (!res.data) return
    const next: ToolResult[] = []
    for (const message of res.data) {
      for (const part of message.parts as Part[]) {
        const fresh = !partTurn.has(part.id)
        if (fresh) partTurn.set(part.id, n)
        if (part.type === "tool") {
          const state = part.state
          const output = state.status === "completed" ? state.output : state.status === "error" ? state.error : ""
          next.push({ turn: partTurn.get(part.id) ?? n, tool: part.tool, status: state.status, input: state.input, output })
          if (fresh) ctx.say(`  tool ${part.tool} ${state.status}: ${preview(output)}`)
        } else if (part.type === "text" && fresh && message.info.role === "assistant") {
          ctx.say(`  assistant: ${preview(part.text)}`)
        }
      }
    }
    results = next
  }

  /** A plugin may start follow-up work when the session goes idle: waits until it stays idle for `settleMs`. */
  const settle = async (client: OpencodeClient, id: string, settleMs: number, deadline: number) => {
    for (;;) {
      await sleep(settleMs)
      // Listen before asking, so an idle event between the two is not missed.
      const idle = nextIdle(id)
      const status = await client.session.status()
      const mine = status.data?.[id]
      if (!mine || mine.type === "idle") {
        idle.cancel()
        return
      }
      await withTimeout(idle.promise, Math.max(1, deadline - Date.now()), "session did not become idle").finally(idle.cancel)
    }
  }

  const runTurn = async (turn: Turn, n: number): Promise<boolean> => {
    ctx.say(`turn ${n} ${turnLabel(turn)}`)
    if (!server || !sessionId) return false
    const { client } = server
    const id = sessionId
    const timeoutMs = turn.timeoutMs ?? scenario.timeoutMs
    const deadline = Date.now() + timeoutMs
    const call =
      turn.command !== undefined
        ? client.session.command({
            path: { id },
            body: { command: turn.command, arguments: sandbox.expand(turn.arguments ?? ""), ...(turn.agent ? { agent: turn.agent } : {}) },
          })
        : client.session.prompt({
            path: { id },
            body: { parts: [{ type: "text", text: sandbox.expand(turn.prompt ?? "") }], ...(turn.agent ? { agent: turn.agent } : {}) },
          })
    try {
      const res = await withTimeout(call, timeoutMs, "timeout")
      if (res.error) ctx.check(`turn ${n}: ${turn.command !== undefined ? "command" : "prompt"} accepted`, false, JSON.stringify(res.error))
      await settle(client, id, turn.settleMs ?? scenario.settleMs, deadline)
    } catch (err) {
      await client.session.abort({ path: { id } }).catch(() => undefined)
      const timedOut = err instanceof Error && /^(timeout|session did not become idle)$/.test(err.message)
      ctx.check(`turn ${n}: finished`, false, timedOut ? `session not idle within ${timeoutMs} ms (aborted)` : String(err))
      await collect(n).catch(() => undefined)
      return false
    }
    await collect(n)
    return true
  }

  return {
    start,
    runTurn,
    restart: async (turn, n) => {
      ctx.say(`turn ${n} restart`)
      await stopServer("restart")
      if (!(await start())) return false
      if (turn.settleMs === undefined || !server || !sessionId) return true
      const timeoutMs = turn.timeoutMs ?? scenario.timeoutMs
      try {
        await settle(server.client, sessionId, turn.settleMs, Date.now() + timeoutMs)
      } catch (err) {
        ctx.check(`turn ${n}: session idle after the restart`, false, String(err))
        await collect(n).catch(() => undefined)
        return false
      }
      await collect(n)
      return true
    },
    toolResults: async () => {
      if (server) await collect(partTurn.size === 0 ? 1 : Math.max(...partTurn.values()))
      return [...results]
    },
    stop: async () => {
      for (const r of replies) if (!r.used) ctx.check(`permission reply "${r.permission}" → ${r.reply} was used`, false, "no such permission was asked")
      replies.length = 0
      await stopServer()
      killStrays()
    },
    stderr: () => stderrAll,
  }
}
