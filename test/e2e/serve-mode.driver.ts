// Serve mode: `servers` × `opencode serve` (default one) on the same HOME and project, driven with the v1 SDK.
// All turns share one session; a turn goes to its `server`, and turns marked `wait: false` run at the same time as
// the turns after them. A restart turn stops its server and starts a new one. Permission asks are answered from
// the scenario's `permissions` list (serve-mode.server.ts).
import { turnLabel, type Driver, type DriverContext, type NumberedTurn } from "./opencode.driver"
import { killStrays, withTimeout } from "./processes"
import type { Turn } from "./scenario.schema"
import { createPermissionBook, startServer, type ServeServer } from "./serve-mode.server"
import { createSessionReader } from "./session.messages"

export function createServeModeDriver(ctx: DriverContext): Driver {
  const { scenario, sandbox } = ctx
  const permissions = createPermissionBook(ctx)
  const servers = new Map<number, ServeServer>()
  const reader = createSessionReader(ctx)
  let sessionId: string | undefined
  let stderrAll = ""

  const tagOf = (server: number) => (scenario.servers > 1 ? ` [server ${server}]` : "")

  const start = async (number: number): Promise<boolean> => {
    const server = await startServer(ctx, number, permissions, (text) => (stderrAll += text))
    if (!server) return false
    servers.set(number, server)
    if (!sessionId) {
      const created = await server.client.session.create({ body: { title: scenario.name ?? "e2e" } })
      if (!created.data) {
        ctx.check("session created", false, JSON.stringify(created.error))
        return false
      }
      sessionId = created.data.id
    }
    return true
  }

  const stopServer = async (number: number, how: "all" | "restart") => {
    const s = servers.get(number)
    servers.delete(number)
    if (s) stderrAll += await s.stop(how)
  }

  /** Reads the session's messages (shared storage: any server will do), prints what is new, refreshes the results. */
  const collect = async (n: number) => {
    const server = servers.get(1) ?? servers.values().next().value
    if (server && sessionId) await reader.collect(server.client, sessionId, n)
  }

  /** Sends one turn to its server and waits until the session settles there; false when it did not finish. */
  const send = async (turn: Turn, n: number): Promise<boolean> => {
    const number = turn.server ?? 1
    ctx.say(`turn ${n}${tagOf(number)} ${turnLabel(turn)}`)
    const server = servers.get(number)
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
      await server.settle(id, turn.settleMs ?? scenario.settleMs, deadline)
    } catch (err) {
      await client.session.abort({ path: { id } }).catch(() => undefined)
      const timedOut = err instanceof Error && /^(timeout|session did not become idle)$/.test(err.message)
      ctx.check(`turn ${n}: finished`, false, timedOut ? `session not idle within ${timeoutMs} ms (aborted)` : String(err))
      return false
    }
    return true
  }

  return {
    start: async () => {
      // One after another: the first start creates opencode's database and the session the others continue.
      for (let number = 1; number <= scenario.servers; number += 1) if (!(await start(number))) return false
      return true
    },
    runTurn: async (turn, n) => {
      const ok = await send(turn, n)
      await collect(n).catch(() => undefined)
      return ok
    },
    runConcurrent: async (turns: readonly NumberedTurn[]) => {
      // Every turn is sent at once, and every one is awaited (also when another failed) before the next turn.
      const done = await Promise.all(turns.map(({ turn, n }) => send(turn, n)))
      await collect(Math.max(...turns.map(({ n }) => n))).catch(() => undefined)
      return done.every(Boolean)
    },
    restart: async (turn, n) => {
      const number = turn.server ?? 1
      ctx.say(`turn ${n}${tagOf(number)} restart`)
      await stopServer(number, "restart")
      if (!(await start(number))) return false
      const server = servers.get(number)
      if (turn.settleMs === undefined || !server || !sessionId) return true
      const timeoutMs = turn.timeoutMs ?? scenario.timeoutMs
      try {
        await server.settle(sessionId, turn.settleMs, Date.now() + timeoutMs)
      } catch (err) {
        ctx.check(`turn ${n}: session idle after the restart`, false, String(err))
        await collect(n).catch(() => undefined)
        return false
      }
      await collect(n)
      return true
    },
    toolResults: async () => {
      if (servers.size > 0) await collect(reader.lastTurn())
      return reader.results()
    },
    evidence: async () => ({ userMessages: reader.userMessages() }),
    stop: async () => {
      permissions.finish()
      await Promise.all([...servers.keys()].map((number) => stopServer(number, "all")))
      killStrays()
    },
    stderr: () => stderrAll,
  }
}
