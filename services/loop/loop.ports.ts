import type { LoopWorktree } from "../../machines/loop/loop.machine"
import type { LoopSandboxMode } from "../../machines/loop/loop.sandbox"
import type { LoopOpenFinding } from "../../machines/loop/loop.findings"
import type { LoopHandoff } from "../../machines/loop/loop.gates"

// What the loop harness needs from the world: a git worktree per loop, and sessions to run its passes in.

export interface LoopWorktrees {
  /** The workspace's HEAD commit; throws why no loop can start here (not a git repository, no commit yet). */
  head(): Promise<string>
  /** Where a loop's worktree folder and branch go; nothing is made. */
  placeFor(loopName: string): { dir: string; branch: string }
  /** Whether a loop name is taken: its worktree folder or its branch exists. */
  isTaken(loopName: string): Promise<boolean>
  /** Adds the worktree at `worktree.dir` on the new branch `worktree.branch`, from `worktree.base`. */
  create(worktree: LoopWorktree): Promise<void>
  /**
   * A restarted loop's worktree: the folder there and on the loop's branch, or (the folder gone, the branch kept) the
   * worktree added again on the branch. Throws why not: the branch is gone, or the folder is not on it.
   */
  reopen(worktree: LoopWorktree): Promise<void>
  /**
   * Commits everything the worktree holds uncommitted on the loop's branch, as `message`: the host's commit, never a
   * pass's. Resolves the new commit's abbreviated hash, or null when there was nothing to commit; throws why not.
   */
  commitAll(worktree: LoopWorktree, message: string): Promise<string | null>
  /** What git says of a loop's branch and worktree now: throws why it cannot tell. */
  branchFacts(worktree: LoopWorktree): Promise<LoopBranchFacts>
}

/** A loop's branch and worktree as git has them: what a loop's ending may claim of its work, and no more. */
export interface LoopBranchFacts {
  /** Commits on the branch since the loop's base. */
  commits: number
  /** The newest of them (abbreviated hash and subject), or null when there is none. */
  last: { hash: string; subject: string } | null
  /** Paths changed in the worktree and not committed (git status), or null when the worktree folder is gone. */
  uncommitted: number | null
}

/** The sessions a loop runs its passes in (opencode: one fresh session per pass). */
export interface LoopSessions {
  /** Opens a new session titled `title`; resolves its id. */
  open(title: string): Promise<string>
  /** Sends a brief into a session without waiting for the turn; it is for the model, not shown as the user's. */
  send(sessionId: string, text: string): Promise<void>
  /** Stops whatever the session runs. */
  stop(sessionId: string): Promise<void>
  /** Tells the user, in the session that started the loop, how it ended (no model turn follows). */
  tell(sessionId: string, text: string): Promise<void>
  /** Whether the session runs nothing (after a restart: whether its idle must be taken as given). */
  isIdle(sessionId: string): Promise<boolean>
  /** The sessions under a session (its subagents, theirs in turn) that are busy or retrying now. */
  busyUnder(sessionId: string): Promise<string[]>
  /** What a session's model turns spent, its subagents' (theirs in turn) included. */
  usage(sessionId: string): Promise<LoopUsage>
}

/** Tokens and cost, as opencode counts them on a session's assistant messages. */
export interface LoopUsage {
  input: number
  output: number
  reasoning: number
  cacheRead: number
  cacheWrite: number
  /** In the provider's currency units (USD for the providers opencode prices). */
  cost: number
}

/** The approved plan a loop executes: the session's live plan document as it stands. */
export interface LoopPlan {
  planPath: string
  /** The plan document's status ("approved" is the only one a loop runs). */
  status: string
  title: string
  /** The document without its frontmatter. */
  body: string
}

export interface LoopPlans {
  /** The session's live plan, read now; undefined when it has none. */
  liveFor(sessionId: string): Promise<LoopPlan | undefined>
}

/** The sandbox a loop's shells run in: as the user chose it, and whether it starts on this machine. */
export interface LoopSandboxes {
  readonly mode: LoopSandboxMode
  /** Whether a sandboxed shell reaches the network. */
  readonly network: boolean
  /** Why the sandbox cannot start here now (tried for real), or null when it starts. */
  problem(): Promise<string | null>
}

/** One audit of a loop, as its history keeps it. */
export interface LoopAuditEntry {
  loopName: string
  /** The section audited (0-based), or CROSS_SECTION (-1) for the final audit. */
  section: number
  pass: number
  sessionId: string
  outcome: "clean" | "dirty"
  /** The coder's handoff the audit checked (null: none). */
  coderHandoff: LoopHandoff | null
  /** The open findings when the audit started, and the ones in its scope when it handed off (its handoff's included). */
  before: LoopOpenFinding[]
  after: LoopOpenFinding[]
  at: number
}

/** A stored finding: a loop's ("" for the workspace's own review, outside every loop), with when and who wrote it. */
export interface StoredFinding extends LoopOpenFinding {
  id: number
  loopName: string
  sessionId: string
  createdAt: number
}

/** A stored audit, with its id (the history pages backwards by id). */
export interface StoredAudit extends LoopAuditEntry {
  id: number
}

/** Where the review findings and the loops' audit history are kept (the workspace database). */
export interface LoopReviews {
  /** Makes the loop's stored open findings `findings` (those gone are deleted, new ones added as `sessionId`'s, now). */
  store(loopName: string, findings: readonly LoopOpenFinding[], sessionId: string, at: number): Promise<void>
  /** A finding of the workspace's own review (outside every loop); throws when one is open at its place. */
  add(finding: LoopOpenFinding, sessionId: string, at: number): Promise<void>
  /** Deletes the workspace's own finding at a place; false when there is none. */
  remove(place: { file: string; line: number }): Promise<boolean>
  /** The stored findings of a loop ("" : the workspace's own), oldest first. */
  findings(loopName: string): Promise<StoredFinding[]>
  recordAudit(entry: LoopAuditEntry): Promise<void>
  /** A loop's audits, newest first: at most `limit`, older than `beforeId` when given. */
  audits(loopName: string, limit: number, beforeId?: number): Promise<StoredAudit[]>
}
