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

/** A fingerprint of what the plugin has recorded (its transition log): a change means it is still at work. */
export type QuietMark = () => Promise<string>

export interface EventStream {
  /**
   * Waits until the session is idle on this process and stays so, with `mark` unchanged, for `settleMs` (a plugin may
   * start work on idle). Rejects with "session did not become idle" at `deadline`.
   */
  settle(sessionId: string, settleMs: number, deadline: number, mark?: QuietMark): Promise<void>
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
  const busyWaiters = new Set<(sessionId: string) => void>()
  /** When each session was last seen working: a settle window it falls in does not count as idle. */
  const lastBusy = new Map<string, number>()

  /** Starts listening for the session's next idle (or busy) event; `cancel` stops listening. */
  const next = (waiters: Set<(sessionId: string) => void>, id: string) => {
    let done: () => void = () => {}
    const promise = new Promise<void>((resolve) => (done = resolve))
    const waiter = (sid: string) => {
      if (sid !== id) return
      waiters.delete(waiter)
      done()
    }
    waiters.add(waiter)
    return { promise, cancel: () => waiters.delete(waiter) }
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
        else if (session.data.type === "session.status") {
          lastBusy.set(sessionID, Date.now())
          for (const waiter of busyWaiters) waiter(sessionID)
        }
      }
    } catch (err) {
      if (!events.signal.aborted) handlers.ended(err)
    }
  }

  const stream: EventStream = {
    // Event-driven: a busy session is waited for until its idle event, then the window starts; work seen in it (a
    // busy event, or a new record of the plugin) starts a new one. Nothing is slept before the session is idle.
    settle: async (id, settleMs, deadline, mark = async () => "") => {
      const left = () => Math.max(1, deadline - Date.now())
      for (;;) {
        if (Date.now() >= deadline) throw new Error("session did not become idle")
        // Listen before asking, so an event between the two is not missed.
        const idle = next(idleWaiters, id)
        const status = await client.session.status()
        const mine = status.data?.[id]
        if (mine && mine.type !== "idle") {
          await withTimeout(idle.promise, left(), "session did not become idle").finally(idle.cancel)
          continue
        }
        idle.cancel()
        const windowStart = Date.now()
        const before = await mark()
        const busy = next(busyWaiters, id)
        // The deadline may cut the window short; that is decided here, not by reading the clock after the sleep (a
        // timer may fire a millisecond before Date.now() says its time is up, which once failed a settled session).
        const window = Math.min(settleMs, left())
        const quiet = sleep(window).then(() => true)
        const stayedQuiet = await Promise.race([quiet, busy.promise.then(() => false)]).finally(busy.cancel)
        if (!stayedQuiet || (lastBusy.get(id) ?? 0) >= windowStart) continue
        if ((await mark()) !== before) continue
        if (window < settleMs) throw new Error("session did not become idle")
        return
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
