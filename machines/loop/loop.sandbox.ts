// The loop's sandbox, decided from the loop's state: whether a pass's shells are confined, and how. A coder's shell
// writes only its worktree; an auditor's (and any shell of a session that is not the phase's current one) writes
// nothing at all. The host makes it so (bubblewrap); the machine only says what must hold.

export type LoopSandboxMode = "bwrap" | "off"

export interface LoopSandbox {
  /** "bwrap": every shell of a pass runs in a bubblewrap sandbox; "off": the user turned it off, shells run unconfined. */
  mode: LoopSandboxMode
  /** Whether a sandboxed shell reaches the network. */
  network: boolean
  /** A birth fact: why the sandbox cannot start on this machine, or null when it starts (or is off). */
  problem: string | null
}

/** What confines one shell of a loop's session. */
export interface ShellConfinement {
  /** The loop's worktree (absolute): the one folder a pass's shell may write. */
  worktree: string
  /** Whether this shell may write the worktree: the current coder's may, an auditor's may not. */
  writable: boolean
  network: boolean
}

/**
 * Whether a confined shell is sealed: it writes nothing and reaches no network, so nothing it runs changes a file or
 * leaves the machine. A sealed session runs unattended (an auditor's): its forge_shell asks no dialog.
 */
export function isSealed(confinement: ShellConfinement): boolean {
  return !confinement.writable && !confinement.network
}

/** The sandbox a loop starts with when its record predates the sandbox: on, offline, as every new loop by default. */
export const DEFAULT_LOOP_SANDBOX: LoopSandbox = { mode: "bwrap", network: false, problem: null }

/** Whether a loop may start with this sandbox: off by the user's choice, or able to start here. Never a fallback. */
export function isSandboxReady(sandbox: LoopSandbox): boolean {
  return sandbox.mode === "off" || sandbox.problem === null
}

/** The facts of a live loop that confine a session's shells. */
export interface ConfinementFacts {
  sandbox: LoopSandbox
  worktree: string
  /** Every session the loop opened, and the phase's current one (null while a pass opens). */
  sessions: readonly string[]
  current: string | null
  /** Whether the loop's phase bans writes (an audit). */
  writeBan: boolean
}

/** How a shell of `session` is confined, or null when it is not (not the loop's session, or the sandbox is off). */
export function confinementOf(facts: ConfinementFacts, session: string): ShellConfinement | null {
  if (facts.sandbox.mode === "off" || !facts.sessions.includes(session)) return null
  return { worktree: facts.worktree, writable: session === facts.current && !facts.writeBan, network: facts.sandbox.network }
}
