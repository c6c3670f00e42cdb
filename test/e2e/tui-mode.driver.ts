// TUI mode: the real opencode TUI in a private tmux server (tui-mode.start.ts), driven by typing into it as a user
// does: a prompt is typed and sent with Enter, a command is typed as `/name arguments`, and a keys turn presses
// tmux keys (permission dialogs, Escape, Tab, …). A turn is over when the screen shows what its `screen` asks for,
// or else when the session has stayed idle for settleMs on the event stream of the TUI's own HTTP server (--port),
// which is also where the session's messages (tool results, user messages) are read from, as in serve mode.
import path from "node:path"
import { transitionMark } from "./forge-db"
import { turnLabel, type Driver, type DriverContext } from "./opencode.driver"
import { openEventStream, type EventStream } from "./opencode.events"
import { sleep } from "./processes"
import type { Turn } from "./scenario.schema"
import { countUserMessages, createSessionReader } from "./session.messages"
import { captureRegion, keepCapture } from "./tui-mode.capture"
import { formatScreen, saveScreen, waitForScreen } from "./tui-mode.screen"
import { startTui, stopTui, type RunningTui } from "./tui-mode.start"

/** Between two keys of a turn, and between typed text and its Enter: the TUI handles each before the next. */
const KEY_PAUSE_MS = 150
/** After typing `/name …`: the command popup opens (and closes again at the space) before Enter. */
const COMMAND_POPUP_MS = 300
const EVENTS_TIMEOUT_MS = 30_000
const POLL_MS = 100

export function createTuiModeDriver(ctx: DriverContext): Driver {
  const { scenario, sandbox } = ctx
  const reader = createSessionReader(ctx)
  const dbFile = path.join(sandbox.project, scenario.dbPath)
  let tui: RunningTui | undefined
  let events: EventStream | undefined
  let sessionId: string | undefined
  let stopped = false

  /** The session the TUI created at its first prompt: the first one of the project (the harness made none). */
  const findSession = async (): Promise<string | undefined> => {
    if (sessionId || !tui) return sessionId
    const list = await tui.client.session.list()
    sessionId = [...(list.data ?? [])].sort((a, b) => a.time.created - b.time.created)[0]?.id
    return sessionId
  }

  const capture = () => (tui ? tui.tmux.capture() : Promise.reject(new Error("the TUI is not running")))

  /** Types the turn into the TUI. */
  const send = async (t: RunningTui, turn: Turn) => {
    if (turn.prompt !== undefined) {
      await t.tmux.type(sandbox.expand(turn.prompt))
      await sleep(KEY_PAUSE_MS)
      await t.tmux.press("Enter")
    } else if (turn.command !== undefined) {
      // Always with the space: it closes the popup, so Enter runs the command as typed. Without it, the first Enter
      // would only complete the popup's highlighted entry.
      await t.tmux.type(`/${turn.command} ${sandbox.expand(turn.arguments ?? "")}`)
      await sleep(COMMAND_POPUP_MS)
      await t.tmux.press("Enter")
    } else
      for (const [i, key] of (turn.keys ?? []).entries()) {
        if (i > 0) await sleep(KEY_PAUSE_MS)
        await (typeof key === "string" ? t.tmux.press(key) : t.tmux.type(sandbox.expand(key.text)))
      }
  }

  /**
   * Waits until the prompt or command typed in turn `n` reached the session (one more user message than `before`),
   * then until the session stays idle for settleMs. False (a failed check) when that did not happen in time.
   */
  const settle = async (t: RunningTui, turn: Turn, n: number, before: number, deadline: number): Promise<boolean> => {
    const timeoutMs = turn.timeoutMs ?? scenario.timeoutMs
    let id: string | undefined
    for (;;) {
      id = await findSession().catch(() => undefined)
      if (id && (await countUserMessages(t.client, id).catch(() => before)) > before) break
      if (Date.now() >= deadline) {
        ctx.check(`turn ${n}: finished`, false, `no new user message in the session within ${timeoutMs} ms (was it sent? see the screen)`)
        return false
      }
      await sleep(POLL_MS)
    }
    try {
      await events?.settle(id, turn.settleMs ?? scenario.settleMs, deadline, () => transitionMark(dbFile))
      return true
    } catch (err) {
      await t.client.session.abort({ path: { id } }).catch(() => undefined)
      const timedOut = err instanceof Error && err.message === "session did not become idle"
      ctx.check(`turn ${n}: finished`, false, timedOut ? `session not idle within ${timeoutMs} ms (aborted)` : String(err))
      return false
    }
  }

  /** False (a failed check, the last screen printed) when opencode has exited or tmux is gone. */
  const stillRunning = async (t: RunningTui, n: number): Promise<boolean> => {
    const pane = await t.tmux.pane().catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))))
    if (pane instanceof Error) {
      ctx.check(`turn ${n}: TUI still running`, false, pane.message)
      return false
    }
    if (!pane.dead) return true
    ctx.check(`turn ${n}: TUI still running`, false, `opencode exited with ${pane.status ?? "?"}`)
    ctx.say(formatScreen(await capture().catch(() => "")))
    return false
  }

  const runTurn = async (turn: Turn, n: number): Promise<boolean> => {
    ctx.say(`turn ${n} ${turnLabel(turn)}`)
    const t = tui
    if (!t) return false
    const deadline = Date.now() + (turn.timeoutMs ?? scenario.timeoutMs)
    const known = await findSession().catch(() => undefined)
    const before = known ? await countUserMessages(t.client, known).catch(() => 0) : 0
    try {
      await send(t, turn)
    } catch (err) {
      ctx.check(`turn ${n}: typed into the TUI`, false, (err as Error).message)
      return false
    }
    let ok = true
    if (turn.screen) {
      try {
        // A dialog is drawn over a few frames: a capture waits until its rows are on the screen too.
        const spec = turn.capture
        const region =
          spec === undefined
            ? undefined
            : (s: string) => {
                const found = captureRegion(s, spec, sandbox.root)
                return "problem" in found ? `capture ${spec.name}: ${found.problem}` : null
              }
        const { screen, problems } = await waitForScreen(capture, turn.screen, deadline, region)
        if (problems.length > 0) {
          ctx.check(`turn ${n} screen`, false, problems.join("; "))
          ctx.say(`  screen after turn ${n} (${problems.join("; ")}):`)
          ctx.say(formatScreen(screen))
        } else if (turn.capture !== undefined) {
          const region = captureRegion(screen, turn.capture, sandbox.root)
          const problem = "problem" in region ? region.problem : keepCapture(turn.capture.name, region.text)
          ctx.check(`turn ${n} capture ${turn.capture.name}`, problem === null, problem ?? "")
          if ("problem" in region) ctx.say(formatScreen(screen))
        }
      } catch (err) {
        ctx.check(`turn ${n} screen`, false, (err as Error).message)
      }
    } else if (turn.keys !== undefined) await sleep(turn.settleMs ?? scenario.settleMs)
    else ok = await settle(t, turn, n, before, deadline)
    const screen = await capture().catch(() => undefined)
    if (screen !== undefined) saveScreen(sandbox.root, `turn-${n}`, screen)
    const id = await findSession().catch(() => undefined)
    if (id) await reader.collect(t.client, id, n).catch(() => undefined)
    return (await stillRunning(t, n)) && ok
  }

  const collectAll = async () => {
    const id = await findSession().catch(() => undefined)
    if (tui && id) await reader.collect(tui.client, id, reader.lastTurn())
  }

  return {
    start: async () => {
      tui = await startTui(ctx)
      if (!tui) return false
      try {
        events = await openEventStream(
          tui.client,
          {
            // The TUI shows the dialog; a keys turn answers it.
            permission: (ask) => ctx.say(`  permission ${ask.permission} (${(ask.patterns ?? []).join(", ")}) asked: the TUI shows the dialog`),
            ended: (err) => ctx.say(`  event stream ended: ${String(err)}`),
          },
          EVENTS_TIMEOUT_MS,
        )
      } catch (err) {
        ctx.check("event stream connected", false, (err as Error).message)
        return false
      }
      return true
    },
    runTurn,
    restart: async (_turn, n) => {
      ctx.check(`turn ${n}: restart`, false, "TUI mode cannot restart opencode")
      return false
    },
    toolResults: async () => {
      await collectAll()
      return reader.results()
    },
    evidence: async () => {
      const screen = await capture().catch(() => undefined)
      if (screen !== undefined) saveScreen(sandbox.root, "final", screen)
      await collectAll().catch(() => undefined)
      return { userMessages: reader.userMessages(), ...(screen === undefined ? {} : { screen }) }
    },
    stop: async () => {
      if (stopped) return
      stopped = true
      events?.close()
      if (tui) await stopTui(tui)
    },
    // opencode draws on the terminal: what it writes to stderr is on the screen (saved under screens/).
    stderr: () => "",
  }
}
