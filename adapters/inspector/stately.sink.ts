import { createWebSocketInspector } from "@statelyai/inspect"
import type { AnyStateMachine } from "xstate"
import type { InspectedSnapshot, InspectionSink } from "./inspection.stream"

// The `inspect` option's connection: @statelyai/inspect's WebSocket inspector, the protocol Stately's inspector and
// `forgecharts inspect` both receive. Its adapter queues while disconnected and buffers without limit while connected,
// so the stream sends only when `ready` says the socket is open and nothing is backed up; and it reconnects only
// after an error, so a socket that closed cleanly (an inspector stopped and started again) is reopened here.

/** Past this many bytes waiting in the socket, the stream holds its events (and drops past its own limit). */
const BACKED_UP = 1024 * 1024
const REOPEN_MS = 6_000

interface SocketLike {
  readyState?: number
  bufferedAmount?: number
}

/** Each machine's definition, as Stately's inspector draws it, written once per process. */
const definitions = new WeakMap<AnyStateMachine, string>()
function definitionOf(machine: AnyStateMachine): string {
  let definition = definitions.get(machine)
  if (definition === undefined) {
    definition = JSON.stringify(machine.config)
    definitions.set(machine, definition)
  }
  return definition
}

export function statelySink(url: string): InspectionSink {
  const inspector = createWebSocketInspector({ url, autoStart: false })
  // The adapter's socket is not part of its types: read defensively (pinned @statelyai/inspect 0.7.2).
  const socket = () => (inspector.adapter as unknown as { ws?: SocketLike }).ws
  let startedAt = Date.now()
  inspector.start()
  let last: SocketLike | undefined
  let connection = 0
  let seq = 0
  return {
    ready() {
      const ws = socket()
      if (ws !== last && ws?.readyState === 1) {
        last = ws
        connection++
      }
      // CLOSED long enough that the adapter's own retry (5 s after an error) is not coming: open again.
      if (ws?.readyState === 3 && Date.now() - startedAt > REOPEN_MS) {
        startedAt = Date.now()
        inspector.start()
      }
      return ws?.readyState === 1 && (ws.bufferedAmount ?? 0) < BACKED_UP
    },
    connection: () => connection,
    announce({ sessionId, machine, snapshot }: InspectedSnapshot) {
      inspector.adapter.send({
        type: "@xstate.actor",
        name: machine.id,
        sessionId,
        rootId: sessionId,
        parentId: undefined,
        id: `${sessionId}#${++seq}`,
        createdAt: String(Date.now()),
        _version: "forgecharts",
        definition: definitionOf(machine),
        snapshot,
      })
    },
    send({ sessionId, snapshot }: InspectedSnapshot) {
      inspector.snapshot(sessionId, snapshot as Parameters<typeof inspector.snapshot>[1])
    },
    close: () => inspector.stop(),
  }
}
