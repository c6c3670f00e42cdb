// One `opencode serve` of a serve-mode scenario: a process of its own started on a free 127.0.0.1 port, or the
// scenario's project on a shared host (shared.host.ts); its event stream consumed from before the first turn
// (opencode.events.ts: so no permission ask is missed), its permission asks answered from the scenario's
// `permissions`, and the idle of a session as this process sees it. A scenario may run several processes of its own
// on the same HOME and project; each sees only the turns it runs itself (session status is per process), while
// messages, the plugin's database and the files are shared.
import path from "node:path"
import { createOpencodeClient, type OpencodeClient } from "@opencode-ai/sdk/client"
import { transitionMark } from "./forge-db"
import type { DriverContext } from "./opencode.driver"
import { openEventStream, type EventStream, type PermissionAsk } from "./opencode.events"
import { freePort, spawnTracked, withTimeout, type Spawned } from "./processes"
import type { SharedHost } from "./shared.host"

const START_TIMEOUT_MS = 60_000

/** The scenario's permission replies, shared by every server: each ask takes the first unused entry that fits. */
export interface PermissionBook {
  /** Answers an ask of `server`; logs it, and fails a check when no entry fits. */
  answer(server: ServeServer, ask: PermissionAsk): Promise<void>
  /** Fails a check for every entry never used. */
  finish(): void
}

export function createPermissionBook(ctx: DriverContext): PermissionBook {
  const replies = ctx.scenario.permissions.map((p) => ({ ...p, used: false }))
  return {
    answer: async (server, ask) => {
      const reply = replies.find((r) => !r.used && r.permission === ask.permission && (r.server ?? server.number) === server.number)
      const patterns = (ask.patterns ?? []).join(", ")
      if (reply) {
        reply.used = true
        ctx.say(`  permission ${ask.permission} (${patterns}) → ${reply.reply}${server.tag}`)
      } else {
        ctx.say(`  permission ${ask.permission} (${patterns}) → reject (no reply listed)${server.tag}`)
        ctx.check(`permission ask "${ask.permission}"${server.tag} has a scripted reply`, false, `patterns: ${patterns || "(none)"}`)
      }
      const res = await server.client.postSessionIdPermissionsPermissionId({
        path: { id: ask.sessionID, permissionID: ask.id },
        body: { response: reply?.reply ?? "reject" },
      })
      if (res.error) ctx.check(`reply to permission ask "${ask.permission}"${server.tag}`, false, JSON.stringify(res.error))
    },
    finish: () => {
      for (const r of replies)
        if (!r.used) {
          const where = r.server === undefined ? "" : ` (server ${r.server})`
          ctx.check(`permission reply "${r.permission}" → ${r.reply}${where} was used`, false, "no such permission was asked")
        }
      replies.length = 0
    },
  }
}

export interface ServeServer {
  /** 1-based number of the server in the scenario. */
  readonly number: number
  /** ` [server N]` when the scenario runs several servers, else empty: appended to progress lines. */
  readonly tag: string
  readonly client: OpencodeClient
  /**
   * Waits until this server has seen the session idle, and the lifecycle store's transition log quiet, for
   * `settleMs` (a plugin may start work on idle).
   */
  settle(sessionId: string, settleMs: number, deadline: number): Promise<void>
  /**
   * `restart`: stops opencode alone, as a real restart does; else its whole tree (on a shared host: the project's
   * instance and what the scenario left running). Resolves with its stderr.
   */
  stop(how: "all" | "restart"): Promise<string>
}

/** Opens the event stream of `client` and makes the server; undefined (a failed check) when it did not connect. */
async function connect(
  ctx: DriverContext,
  number: number,
  client: OpencodeClient,
  permissions: PermissionBook,
  halt: (how: "all" | "restart") => Promise<string>,
  stderr: (text: string) => void,
): Promise<ServeServer | undefined> {
  const tag = ctx.scenario.servers > 1 ? ` [server ${number}]` : ""
  const dbFile = path.join(ctx.sandbox.project, ctx.scenario.dbPath)
  let events: EventStream | undefined
  const server: ServeServer = {
    number,
    tag,
    client,
    settle: (id, settleMs, deadline) => (events ? events.settle(id, settleMs, deadline, () => transitionMark(dbFile)) : Promise.resolve()),
    stop: async (how) => {
      events?.close()
      return halt(how)
    },
  }
  try {
    events = await openEventStream(
      client,
      {
        permission: (ask) =>
          void permissions.answer(server, ask).catch((err: unknown) => ctx.check(`reply to permission ask "${ask.permission}"${tag}`, false, String(err))),
        ended: (err) => ctx.say(`  event stream ended: ${String(err)}${tag}`),
      },
      START_TIMEOUT_MS,
    )
  } catch (err) {
    ctx.check(`event stream connected${tag}`, false, (err as Error).message)
    stderr(await server.stop("all"))
    return undefined
  }
  return server
}

/** The scenario's project on a shared host: its instance boots on the first request for the project's directory. */
export async function attachServer(ctx: DriverContext, host: SharedHost, permissions: PermissionBook): Promise<ServeServer | undefined> {
  ctx.say(`  shared host ${host.url}`)
  const client = createOpencodeClient({ baseUrl: host.url, directory: ctx.sandbox.project })
  return connect(
    ctx,
    1,
    client,
    permissions,
    async () => {
      await host.release(ctx.sandbox.project, ctx.sandbox.root)
      return ""
    },
    () => {},
  )
}

/**
 * Starts server `number` and connects to its event stream. Resolves undefined when it did not come up (recorded
 * as a failed check); `stderr` then receives what it wrote.
 */
export async function startServer(
  ctx: DriverContext,
  number: number,
  permissions: PermissionBook,
  stderr: (text: string) => void,
): Promise<ServeServer | undefined> {
  const { scenario, sandbox } = ctx
  const tag = scenario.servers > 1 ? ` [server ${number}]` : ""
  const port = await freePort()
  let resolveUrl: (url: string) => void = () => {}
  const listening = new Promise<string>((resolve) => (resolveUrl = resolve))
  let out = ""
  const proc: Spawned = spawnTracked(ctx.bin, ["serve", "--hostname", "127.0.0.1", "--port", String(port), "--log-level", scenario.logLevel], {
    cwd: sandbox.project,
    env: sandbox.envFor(number),
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
    stderr(proc.stderr())
    ctx.check(`opencode serve started${tag}`, false, (err as Error).message)
    return undefined
  }
  ctx.say(`  server ${url}${tag}`)
  const client = createOpencodeClient({ baseUrl: url, directory: sandbox.project })
  return connect(
    ctx,
    number,
    client,
    permissions,
    async (how) => {
      await (how === "restart" ? proc.stopProcess() : proc.stop())
      return proc.stderr()
    },
    stderr,
  )
}
