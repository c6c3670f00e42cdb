// Serve mode: `servers` × `opencode serve` (default one) on the same HOME and project, or the project on a shared
// host (shared.host.ts), driven with the v1 SDK.
// All turns share one session; a turn goes to its `server`, and turns marked `wait: false` run at the same time as
// the turns after them. A restart turn stops its server and starts a new one. Permission asks are answered from
// the scenario's `permissions` list (serve-mode.server.ts).
import path from "node:path"
import { readForgeDb } from "./forge-db"
import { describeWanted, matchActor } from "./lifecycle.match"
import { turnLabel, type Driver, type DriverContext, type NumberedTurn } from "./opencode.driver"
import { killStrays, withTimeout } from "./processes"
import type { Turn } from "./scenario.schema"
import { attachServer, createPermissionBook, startServer, type ServeServer } from "./serve-mode.server"
import { createSessionReader } from "./session.messages"

export function createServeModeDriver(ctx: DriverContext): Driver {
  const { scenario, sandbox } = ctx
  const permissions = createPermissionBook(ctx)
  const servers = new Map<number, ServeServer>()
  const reader = createSessionReader(ctx)
  let sessionId: string | undefined
  let stderrAll = ""

  // Several servers, or several workspaces on one host: each turn line names which one.
  const tagOf = (server: number, workspace?: number) =>
    scenario.servers > 1 ? ` [server ${server}]` : scenario.workspaces !== undefined ? ` [workspace ${workspace ?? 1}]` : ""

  const start = async (number: number): Promise<boolean> => {
    const server = ctx.host ? await attachServer(ctx, ctx.host, permissions) : await startServer(ctx, number, permissions, (text) => (stderrAll += text))
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

  /**
   * A turn's `until`: polls the lifecycle store until an actor is as the turn wants (work the plugin carries on in
   * other sessions, such as a loop's passes), within the turn's deadline. False (with a failed check) when it never is.
   */
  const waitUntil = async (turn: Turn, n: number, deadline: number): Promise<boolean> => {
    if (turn.until === undefined) return true
    const dbFile = path.join(sandbox.project, scenario.dbPath)
    let last = { ok: false, detail: "not read yet" }
    while (Date.now() < deadline) {
      const db = await readForgeDb(dbFile).catch((err: unknown) => ({ exists: false, actors: [], error: String(err) }))
      last = matchActor(turn.until, db.actors, db.exists)
      if (last.ok) {
        ctx.say(`turn ${n} until ${describeWanted(turn.until)}: reached`)
        return true
      }
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    ctx.check(`turn ${n}: until ${describeWanted(turn.until)}`, false, `not within the turn's timeout; ${last.detail}`)
    return false
  }

  /** Sends one turn to its server and waits until the session settles there; false when it did not finish. */
  const send = async (turn: Turn, n: number): Promise<boolean> => {
    const number = turn.server ?? 1
    ctx.say(`turn ${n}${tagOf(number, turn.workspace)} ${turnLabel(turn)}`)
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
    return waitUntil(turn, n, deadline)
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
      const timeoutMs = turn.timeoutMs ?? scenario.timeoutMs
      const deadline = Date.now() + timeoutMs
      // Nobody prompts the session after a restart: what the plugin takes up by itself is waited for first, then the
      // session's idle.
      const reached = await waitUntil(turn, n, deadline)
      if (!reached || turn.settleMs === undefined || !server || !sessionId) {
        await collect(n).catch(() => undefined)
        return reached
      }
      try {
        await server.settle(sessionId, turn.settleMs, deadline)
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
