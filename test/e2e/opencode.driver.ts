// What the scenario runner needs from a way of driving opencode (one `opencode run` per turn, `opencode serve`
// with the SDK, or the TUI in tmux). Every driver reports tool results in the same shape.
import type { Sandbox } from "./sandbox"
import type { KeyItem, Scenario, Turn } from "./scenario.schema"
import type { SharedHost } from "./shared.host"

export interface ToolResult {
  /** 1-based turn during which the tool ran (serve mode: the turn running on the server that asked for the call). */
  turn: number
  /** 1-based server whose model request asked for the call (always 1 in run mode). */
  server: number
  /** The call's id as the fake model handed it out (serve mode); what `turn` and `server` are looked up by. */
  callId?: string
  tool: string
  /** "completed" or "error" (anything else means the call never finished). */
  status: string
  input: Record<string, unknown>
  /** The output of a completed call, or the error message of a failed one. */
  output: string
  /** The title opencode gave the call (`state.title`; empty when it has none, e.g. a failed call). */
  title: string
  /** The call's `state.metadata` (empty when it has none). */
  metadata: Record<string, unknown>
}

/** A user message of the session as opencode stores it: what the TUI shows, and what only the model sees. */
export interface UserMessage {
  /** Its text parts that are not `synthetic`, joined with newlines: what the TUI shows as the user's message. */
  shown: string
  /** Its `synthetic` text parts, joined with newlines: sent to the model, hidden in the TUI. */
  hidden: string
}

/** What only some modes can read, gathered after the last turn and before opencode is stopped. */
export interface SessionEvidence {
  /** Serve and TUI mode: the user messages of the session, in order. */
  userMessages?: UserMessage[]
  /** TUI mode: the screen after the last turn. */
  screen?: string
}

export interface DriverContext {
  scenario: Scenario
  sandbox: Sandbox
  /** Path of the opencode binary. */
  bin: string
  /** The shared host the scenario runs on (serve mode), when it starts no opencode of its own. */
  host?: SharedHost
  /** Prints one progress line. */
  say(line: string): void
  /** Records a check; a failed one fails the scenario. */
  check(label: string, ok: boolean, detail?: string): void
}

/** A turn with its 1-based number in the scenario. */
export interface NumberedTurn {
  turn: Turn
  n: number
}

export interface Driver {
  /** Starts whatever must run before the first turn. Resolves false when that failed (recorded as a check). */
  start(): Promise<boolean>
  /** Runs one prompt, command or (TUI mode) keys turn. Resolves false when the scenario cannot go on (timeout, crash). */
  runTurn(turn: Turn, n: number): Promise<boolean>
  /**
   * Serve mode: runs prompt or command turns at the same time (a `wait: false` group, one turn per server) and
   * waits for all of them. Resolves false when any did not finish.
   */
  runConcurrent?(turns: readonly NumberedTurn[]): Promise<boolean>
  /**
   * Stops opencode and starts it again on the same HOME and project, continuing the same session; with the turn's
   * `settleMs`, then waits as after any turn for the session to stay idle (what the plugin does on its own is seen).
   */
  restart(turn: Turn, n: number): Promise<boolean>
  /** Every tool call of the session so far, in order. */
  toolResults(): Promise<ToolResult[]>
  /** Serve and TUI mode: what else the checks read from the running opencode (called before `stop`). */
  evidence?(): Promise<SessionEvidence>
  /** Stops everything this driver started. Safe to call twice. */
  stop(): Promise<void>
  /** Everything opencode wrote to stderr, for diagnostics. */
  stderr(): string
}

/** One line, at most `max` characters, for progress output. */
export function preview(value: unknown, max = 160): string {
  const s = (typeof value === "string" ? value : (JSON.stringify(value) ?? String(value))).replace(/\s+/g, " ").trim()
  return s.length > max ? `${s.slice(0, max - 1)}…` : s
}

export function turnLabel(turn: Turn): string {
  if (turn.prompt !== undefined) return `prompt: ${preview(turn.prompt, 100)}`
  if (turn.command !== undefined) return `command: /${turn.command} ${preview(turn.arguments ?? "", 100)}`.trimEnd()
  if (turn.keys !== undefined) return `keys: ${preview(turn.keys.map(keyLabel).join(" "), 100)}`
  return "restart"
}

/** A key as written in progress lines: its tmux name, or typed text in quotes. */
export function keyLabel(key: KeyItem): string {
  return typeof key === "string" ? key : JSON.stringify(key.text)
}
