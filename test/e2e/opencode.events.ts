// The event stream of one opencode HTTP server (`opencode serve`, or the one the TUI runs with --port): consumed
// from before the first turn so no permission ask and no idle is missed, and the idle of a session as that process
// sees it (session status is per process).
import type { OpencodeClient } from "@opencode-ai/sdk/client"
import { z } from "zod"
import { sleep, withTimeout } from "./processes"

const permissionAsked = z.looseObject({
  type: z.literal("permission.asked"),
  properties: z.looseObject({
    id: z.string(),
    sessionID: z.string(),
    permission: z.string(),
    patterns: z.array(z.string()).optional(),
  }),
})

export type PermissionAsk = z.infer<typeof permissionAsked>["properties"]

const sessionEvent = z.looseObject({
  type: z.enum(["session.idle", "session.status"]),
  properties: z.looseObject({ sessionID: z.string(), status: z.looseObject({ type: z.string() }).optional() }),
})

export interface EventStream {
  /** Waits until this process has seen the session idle for `settleMs` (a plugin may start work on idle). */
  settle(sessionId: string, settleMs: number, deadline: number): Promise<void>
  /** Stops reading the stream. Safe to call twice. */
  close(): void
}

export interface EventHandlers {
  /** A permission ask arrived (serve mode answers it, TUI mode leaves it to the dialog). */
  permission(ask: PermissionAsk): void
  /** The stream ended while still wanted. */
  ended(err: unknown): void
}

/**
 * Subscribes to the server's events and resolves once the first one (server.connected) arrived; rejects after
 * `timeoutMs` without one (the stream is closed then).
 */
export async function openEventStream(client: OpencodeClient, handlers: EventHandlers, timeoutMs: number): Promise<EventStream> {
  const events = new AbortController()
  const idleWaiters = new Set<(sessionId: string) => void>()
  /** When each session was last seen working: a settle window it falls in does not count as idle. */
  const lastBusy = new Map<string, number>()

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

  const consume = async (connected: () => void) => {
    try {
      const sse = await client.event.subscribe({ signal: events.signal, sseMaxRetryAttempts: 0 })
      for await (const raw of sse.stream as AsyncIterable<unknown>) {
        connected()
        const asked = permissionAsked.safeParse(raw)
        if (asked.success) {
          handlers.permission(asked.data.properties)
          continue
        }
        const session = sessionEvent.safeParse(raw)
        if (!session.success) continue
        const { sessionID, status } = session.data.properties
        if (session.data.type === "session.idle" || status?.type === "idle") for (const waiter of idleWaiters) waiter(sessionID)
        else if (session.data.type === "session.status") lastBusy.set(sessionID, Date.now())
      }
    } catch (err) {
      if (!events.signal.aborted) handlers.ended(err)
    }
  }

  const stream: EventStream = {
    // The whole window must be idle: a session that worked in it (a plugin's follow-up on idle that already ended)
    // starts a new window once it is idle again.
    settle: async (id, settleMs, deadline) => {
      for (;;) {
        const windowStart = Date.now()
        await sleep(settleMs)
        // Listen before asking, so an idle event between the two is not missed.
        const idle = nextIdle(id)
        const status = await client.session.status()
        const mine = status.data?.[id]
        const workedInWindow = (lastBusy.get(id) ?? 0) >= windowStart
        if (!mine || mine.type === "idle") {
          idle.cancel()
          if (!workedInWindow) return
          continue
        }
        await withTimeout(idle.promise, Math.max(1, deadline - Date.now()), "session did not become idle").finally(idle.cancel)
      }
    },
    close: () => events.abort(),
  }

  let onConnected: () => void = () => {}
  const connected = new Promise<void>((resolve) => (onConnected = resolve))
  void consume(onConnected)
  try {
    await withTimeout(connected, timeoutMs, "no server.connected event")
  } catch (err) {
    stream.close()
    throw err
  }
  return stream
}
