import type { IncomingMessage, Server } from "node:http"
import type { Duplex } from "node:stream"
import { type WebSocket, WebSocketServer } from "ws"
import * as z from "zod"

// The local inspector's WebSocket endpoint (`ws://127.0.0.1:<port>/inspect`): what the plugin's `inspect` option sends,
// the protocol of @statelyai/inspect. Snapshots of actors the database never holds (a watchdog's watch of one shell
// call) show on the page this way. Only local pages and processes get in: a foreign Host, or a browser page of another
// origin, is refused before the upgrade.

/** One actor as the plugin last described it. */
export interface LiveActor {
  /** `<machine>:<instance>`, as the plugin names its actors. */
  sessionId: string
  machine: string
  status: string
  value: unknown
  context: unknown
  at: number
}

const snapshotSchema = z.looseObject({ status: z.string().optional(), value: z.unknown(), context: z.unknown() })
const eventSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("@xstate.actor"), sessionId: z.string().min(1), name: z.string(), snapshot: snapshotSchema }),
  z.looseObject({ type: z.literal("@xstate.snapshot"), sessionId: z.string().min(1), snapshot: snapshotSchema }),
  z.looseObject({ type: z.literal("@xstate.event"), sessionId: z.string() }),
])

/** A message of at most this size; an inspector's snapshot is far smaller. */
const MAX_MESSAGE = 1024 * 1024

export interface InspectorReceiver {
  /** The endpoint's path. */
  readonly path: string
  close(): void
}

/** Takes the server's upgrades to `path`; `seen` gets every actor's new snapshot. */
export function receiveInspection(server: Server, allowed: (request: IncomingMessage) => string | null, seen: (actor: LiveActor) => void): InspectorReceiver {
  const path = "/inspect"
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE })
  const names = new Map<string, string>()
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const refusal = new URL(request.url ?? "/", "http://127.0.0.1").pathname !== path ? `nothing to upgrade at ${request.url}` : allowed(request)
    if (refusal !== null) {
      socket.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n${refusal}\n`)
      return
    }
    wss.handleUpgrade(request, socket, head, (ws: WebSocket) => {
      ws.on("message", (data, isBinary) => {
        if (isBinary) return
        let parsed: z.infer<typeof eventSchema>
        try {
          parsed = eventSchema.parse(JSON.parse(data.toString()))
        } catch {
          // Not an inspection event this page shows: ignored, the connection stays.
          return
        }
        if (parsed.type === "@xstate.event") return
        if (parsed.type === "@xstate.actor") names.set(parsed.sessionId, parsed.name)
        const { status, value, context } = parsed.snapshot
        const machine = names.get(parsed.sessionId) ?? parsed.sessionId.split(":")[0] ?? parsed.sessionId
        seen({ sessionId: parsed.sessionId, machine, status: status ?? "active", value, context, at: Date.now() })
      })
    })
  }
  server.on("upgrade", onUpgrade)
  return {
    path,
    close() {
      server.off("upgrade", onUpgrade)
      for (const client of wss.clients) client.terminate()
      wss.close()
    },
  }
}
