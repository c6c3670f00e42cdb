import type { LoopContext, LoopWorktree } from "../../machines/loop/loop.machine"

// The names the loop's model world uses: the sessions, the loop and its plan, its worktree, the failures and the
// drivers its paths name, and the placeholders a model context holds where a harness has its own (its worktree, its
// process). A harness's service under test takes them as the model's: it opens pass n's session as `ses_pass_<n>`.

/** The session that starts the loop: it is told how the loop ended. */
export const HOST = "ses_host"
/** A session that is no pass of any loop. */
export const STRANGER = "ses_stranger"
/** The id opencode gives the session opened for pass `n`. */
export const passSession = (n: number): string => `ses_pass_${n}`
/** The session opened for a loop's next pass: numbered over every session it opened (a restart's budget starts again). */
export const nextPassSession = (context: LoopContext): string => passSession(context.sessions.length + 1)
/** The loop's name: the slug of its title. */
export const LOOP = "ship-the-parser"
export const TITLE = "Ship the parser"
/** The first pass of the loop an `askedFrom` config runs inside (it asks for the new loop). */
export const OUTER_SESSION = "ses_outer_pass_1"
export const OUTER_LOOP = "outer-loop"
export const PLAN_PATH = ".opencode/plan/2026-11-30-ship-the-parser.md"
/** The branch the loop's worktree is on; its folder and base commit are a harness's own. */
export const BRANCH = `forge/loop/${LOOP}`
/** The worktree a model input carries: `dir` and `base` stand for a harness's own (its service under test swaps them in). */
export const MODEL_WORKTREE: LoopWorktree = { dir: "(worktree folder)", branch: BRANCH, base: "(base commit)" }

/** What a send to an unreachable session throws. */
export const SEND_DOWN = "promptAsync failed: the session is gone"
/** loop.fail as the service makes it when the first brief of a pass cannot be sent (produced in `opening`). */
export const BRIEF_FAILED = `loop.session.opened failed: ${SEND_DOWN}`
/** loop.fail as the service makes it when a reminder cannot be sent (produced in `working`, no handoff recorded). */
export const NUDGE_FAILED = `loop.idle failed: ${SEND_DOWN}`
/** loop.fail where the service has no road to it: dispatched to the lifecycle itself. */
export const DIRECT_FAIL = "the harness ended the loop"

/** The driver a model's `loop.session.opened` names: the harness's process that opened the session (one id per process). */
export const MODEL_DRIVER = "(the process that opened the session)"
/** A process a model's `loop.restored` names when it starts beside the live process that drives the loop. */
export const NEIGHBOUR_DRIVER = "(a process started beside the live driver)"
