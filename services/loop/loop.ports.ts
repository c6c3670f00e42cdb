import type { LoopWorktree } from "../../machines/loop/loop.machine"
import type { LoopSandboxMode } from "../../machines/loop/loop.sandbox"

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
