// The JSON-line protocol between a test and runtime.child.ts: one request per line on the child's stdin, one
// answer per line on its stdout, plus events the child sends on its own (ready, a dialog opened). Typed once here
// so the child and the harness cannot drift apart.
import type { CriterionCheck } from "../../../machines/plan/plan.gates"
import type { DialogRequest } from "../../../services/lifecycle/lifecycle.ports"
import type { JobRestoreOutcome } from "../../../services/job/job.restore"
import type { PlanSummary } from "../../../services/plan/plan.queries"
import type { PlanOutcome } from "../../../services/plan/plan.service"

/**
 * How the child answers a plan dialog: at once, or held open until the test sends `release` with the same hold
 * name (the child announces the open dialog with a `dialog` event), so another process can act meanwhile.
 */
export type DialogAnswer = "allow" | "reject" | { hold: string }

/** Every operation the child offers: its arguments and what it answers with. */
export interface Ops {
  write: { args: { session: string; body: string }; value: PlanOutcome }
  gate: { args: { session: string; tool: string }; value: string | null }
  approve: { args: { session: string; dialog: DialogAnswer }; value: PlanOutcome }
  tick: { args: { session: string; task: number }; value: PlanOutcome }
  close: { args: { session: string; checks: CriterionCheck[]; dialog: DialogAnswer }; value: PlanOutcome }
  discard: { args: { session: string; by: "user" } | { session: string; by: "model"; dialog: DialogAnswer }; value: PlanOutcome }
  /** Answers a held dialog; resolves once the answer is handed over (the held call answers on its own). */
  release: { args: { hold: string; allow: boolean }; value: null }
  /** The session's live plan and its status as this process knows them (no refresh: what the index says now). */
  liveFor: { args: { session: string }; value: { planPath: string; status: string } | null }
  /** The /plan listing: unfinished plans as this process sees them. */
  list: { args: Record<string, never>; value: PlanSummary[] }
  /** A plan document's text as this process reads it from disk. */
  read: { args: { planPath: string }; value: string }
  /** forge_shell in the background: the job's id (the child's jobs are composed on first use, on the runtime's database). */
  jobStart: { args: { session: string; command: string; survive: boolean }; value: string }
  /** The start-up restore of what dead hosts left: adopted, taken over, orphaned, left to other live hosts. */
  jobRestore: { args: Record<string, never>; value: JobRestoreOutcome }
  /** forge_jobs list: one session's jobs, or every session's. */
  jobList: { args: { session?: string }; value: string }
  /** forge_jobs handoff: the job now belongs to `root`. */
  jobHandoff: { args: { jobId: string; root: string }; value: string }
  /** forge_jobs kill. */
  jobKill: { args: { jobId: string }; value: string }
  /** The wakes this process delivered so far (sent into a session), in order. */
  wakes: { args: Record<string, never>; value: { session: string; text: string }[] }
  /** Closes the runtime (waits for queued writes), then the child exits. */
  exit: { args: Record<string, never>; value: null }
}

export type OpName = keyof Ops

/** What plugin.child.ts offers: the whole plugin, driven through its hooks as opencode drives them. */
export interface PluginOps {
  /** A slash command (`/goal add …`): the text the turn shows. */
  command: { args: { session: string; command: string; arguments: string }; value: string }
  /** A Forge tool's call, its dialog answered as given. */
  tool: { args: { session: string; tool: string; args: Record<string, unknown>; dialog: DialogAnswer }; value: string }
  /** opencode says the session went idle (in this process: its turn ran here). */
  idle: { args: { session: string }; value: null }
  /** opencode compacts the session: what the plugin adds to the summary's context, and whether it lets opencode's own "continue" run. */
  compaction: { args: { session: string }; value: { context: string[]; autocontinue: boolean } }
  /** The prompts this process sent into sessions so far (goal briefs), in order. */
  prompts: { args: Record<string, never>; value: { session: string; text: string }[] }
  release: Ops["release"]
  exit: Ops["exit"]
}

/** The arguments of one operation of a child's table. */
export type ArgsOf<O, K extends keyof O> = O[K] extends { args: infer A } ? A : never
/** The value one operation of a child's table answers with. */
export type ValueOf<O, K extends keyof O> = O[K] extends { value: infer V } ? V : never

export interface Request<K extends OpName = OpName> {
  id: number
  op: K
  args: Ops[K]["args"]
}

/** A request to any child's table of operations `O`. */
export interface RequestTo<O, K extends keyof O = keyof O> {
  id: number
  op: K
  args: ArgsOf<O, K>
}

export interface RemoteError {
  name: string
  message: string
}

export type Answer = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: RemoteError }

/** Lines the child sends without being asked. */
export type ChildEvent =
  | { event: "ready"; pid: number; storageTrouble: string | null }
  | { event: "dialog"; hold: string; request: DialogRequest }
  | { event: "fatal"; message: string }

/** Workspace folder, passed to the child in its environment. */
export const WORKSPACE_ENV = "FORGE_CROSSPROCESS_WORKSPACE"

/**
 * How the child's stand-in for opencode answers "is this session idle?": `busy` keeps a finished job's wake pending
 * (as while the session's turn runs), `idle` lets it be delivered at once.
 */
export const SESSIONS_ENV = "FORGE_CROSSPROCESS_SESSIONS"
