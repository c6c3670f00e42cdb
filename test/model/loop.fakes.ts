import { existsSync, mkdirSync } from "node:fs"
import path from "node:path"
import type { LoopWorktree } from "../../machines/loop/loop.machine"
import type { LoopBranchFacts, LoopSandboxes, LoopSessions, LoopUsage, LoopWorktrees } from "../../services/loop/loop.ports"

// The loop harness's edges for the model test: opencode's sessions, whose openings the SUT settles, and git's
// worktrees, recorded. Everything between them (service, lifecycle host, SQLite) is the real thing.

/** A deferred session opening, as opencode would answer it: the SUT settles it when the model's path says so. */
interface Opening {
  title: string
  state: "pending" | "opened" | "failed" | "orphaned"
  resolve(session: string): void
  reject(error: Error): void
}

/** opencode's sessions as the loop sees them: openings the test settles, and a record of every send, stop and tell. */
export class FakeLoopSessions implements LoopSessions {
  /** Every session spent the same: one answer of the fake model. */
  async usage(): Promise<LoopUsage> {
    return { input: 10, output: 5, reasoning: 0, cacheRead: 0, cacheWrite: 0, cost: 0 }
  }
  readonly openings: Opening[] = []
  readonly sent: { session: string; text: string }[] = []
  /** The sends that threw (the session could not be reached). */
  readonly unsent: { session: string; text: string }[] = []
  readonly stopped: string[] = []
  readonly told: { session: string; text: string }[] = []
  /** Set: every send throws it. */
  failSends: string | undefined

  open(title: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const opening: Opening = {
        title,
        state: "pending",
        resolve: (session) => {
          opening.state = "opened"
          resolve(session)
        },
        reject: (error) => {
          opening.state = "failed"
          reject(error)
        },
      }
      this.openings.push(opening)
    })
  }

  /** The opening this process waits for, if any. */
  pending(): Opening | undefined {
    return this.openings.filter((o) => o.state === "pending").at(-1)
  }

  /** A process died: what it was opening is never answered to it. */
  orphanAll(): void {
    for (const opening of this.openings) if (opening.state === "pending") opening.state = "orphaned"
  }

  async send(session: string, text: string): Promise<void> {
    if (this.failSends !== undefined) {
      this.unsent.push({ session, text })
      throw new Error(this.failSends)
    }
    this.sent.push({ session, text })
  }

  async stop(session: string): Promise<void> {
    this.stopped.push(session)
  }

  async tell(session: string, text: string): Promise<void> {
    this.told.push({ session, text })
  }

  /** After a restart a pass's session still runs its turn: the restore takes no idle as given. */
  /** The subagents a session has working now, as a test sets them (none by default). */
  readonly busy = new Map<string, string[]>()
  async busyUnder(session: string): Promise<string[]> {
    return this.busy.get(session) ?? []
  }
  async isIdle(_session: string): Promise<boolean> {
    return false
  }
}

/** The commit a workspace's HEAD stands for in the model paths. */
export const BASE_COMMIT = "0123456789abcdef0123456789abcdef01234567"

/**
 * The workspace's git worktrees, recorded: each one asked for is made as a folder at its place. Real git is
 * GitLoopWorktrees', tested on its own (test/integration/workspace/loop.worktrees.test.ts); here it would cost every
 * path a handful of git processes and change nothing the machine decides.
 */
export class RecordingWorktrees implements LoopWorktrees {
  readonly created: LoopWorktree[] = []
  constructor(private readonly workspace: string) {}
  async head(): Promise<string> {
    return BASE_COMMIT
  }
  placeFor(loopName: string): { dir: string; branch: string } {
    return { dir: path.join(this.workspace, ".opencode", "forge", "worktrees", loopName), branch: `forge/loop/${loopName}` }
  }
  async isTaken(loopName: string): Promise<boolean> {
    return existsSync(this.placeFor(loopName).dir)
  }
  async create(worktree: LoopWorktree): Promise<void> {
    mkdirSync(worktree.dir, { recursive: true })
    this.created.push(worktree)
  }
  /** The worktrees a restarted loop asked for again. */
  readonly reopened: LoopWorktree[] = []
  async reopen(worktree: LoopWorktree): Promise<void> {
    mkdirSync(worktree.dir, { recursive: true })
    this.reopened.push(worktree)
  }
  /** The commits the host asked for, by message. */
  readonly commits: string[] = []
  async commitAll(_worktree: LoopWorktree, message: string): Promise<string | null> {
    this.commits.push(message)
    return `c0ffee${this.commits.length}`
  }
  async branchFacts(): Promise<LoopBranchFacts> {
    return RECORDED_BRANCH
  }
}

/** What git says of every recorded loop's branch when it ends: one commit, nothing left uncommitted. */
export const RECORDED_BRANCH: LoopBranchFacts = { commits: 1, last: { hash: "5e1f00d", subject: "section 1: Parser" }, uncommitted: 0 }

/** A loop sandbox that starts (the sandbox itself is tested with real bubblewrap in test/integration/sandbox). */
export const SANDBOX_READY: LoopSandboxes = { mode: "bwrap", network: false, problem: async () => null }
