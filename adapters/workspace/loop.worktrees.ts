import { realpathSync } from "node:fs"
import { lstat, rm } from "node:fs/promises"
import path from "node:path"
import type { LoopWorktree } from "../../machines/loop/loop.machine"
import type { LoopBranchFacts, LoopWorktrees } from "../../services/loop/loop.ports"
import { LOOP_BRANCH_PREFIX, LOOP_WORKTREES_DIR } from "../../services/loop/loop.start.defaults"
import { writeFileAtomic } from "./atomic.write"
import { type GitOutcome, detail, runGit, tail } from "./git.run"

// A loop works in a git worktree and on a branch of its own, so its passes never touch the user's checkout. These
// are made by the real git: no shell, bounded in time, and never redirected to another repository by a GIT_DIR (or
// GIT_WORK_TREE, GIT_INDEX_FILE, …) the user's environment happens to carry.

const LOOP_NAME = /^[a-z0-9][a-z0-9-]*$/

export class GitLoopWorktrees implements LoopWorktrees {
  constructor(private readonly workspace: string) {}

  async head(): Promise<string> {
    // Asked first so that "not a repository" and "no commit yet" get different advice.
    const inside = await this.git(["rev-parse", "--is-inside-work-tree"])
    if (inside.code !== 0 || inside.stdout.trim() !== "true") {
      throw new Error(`loop_start needs a git repository: ${this.workspace} is not inside a git work tree${detail(inside.stderr)}; run \`git init\` and commit`)
    }
    const head = await this.git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])
    if (head.code !== 0) {
      throw new Error(`loop_start needs a commit to start from: the git repository at ${this.workspace} has none yet${detail(head.stderr)}; commit once first`)
    }
    return head.stdout.trim()
  }

  placeFor(loopName: string): { dir: string; branch: string } {
    if (!LOOP_NAME.test(loopName)) throw new Error(`loop name ${JSON.stringify(loopName)} is not a slug ([a-z0-9-]): no worktree can be named after it`)
    // By real path: the loop's worktree gate compares the real paths a pass's tools name with it.
    return { dir: path.join(realWorkspace(this.workspace), LOOP_WORKTREES_DIR, loopName), branch: `${LOOP_BRANCH_PREFIX}${loopName}` }
  }

  async isTaken(loopName: string): Promise<boolean> {
    const { dir, branch } = this.placeFor(loopName)
    return (await exists(dir)) || (await this.branchExists(branch))
  }

  async create({ dir, branch, base }: LoopWorktree): Promise<void> {
    // `*` ignores everything beside it, itself included: the main checkout's `git status` never lists a worktree.
    const ignore = path.join(this.workspace, LOOP_WORKTREES_DIR, ".gitignore")
    if (!(await exists(ignore))) await writeFileAtomic(ignore, "*\n")
    const failed = (outcome: GitOutcome) =>
      new Error(`could not add the loop worktree ${dir} on branch ${branch}: ${tail(outcome.stderr) || `git exited with code ${outcome.code}`}`)
    // The branch first, on its own: once it is made, it is ours (a concurrent create of the same loop fails here), so
    // undoing a failed add never removes what someone else made.
    const branched = await this.git(["branch", "--no-track", "--", branch, base])
    if (branched.code !== 0) throw failed(branched)
    const dirExisted = await exists(dir)
    let added: GitOutcome | undefined
    try {
      added = await this.git(["worktree", "add", "--", dir, branch])
    } finally {
      // A failed add, or one git did not finish (killed at its timeout), leaves nothing of ours behind.
      if (added?.code !== 0) {
        if (!dirExisted && (await exists(dir))) {
          await this.git(["worktree", "remove", "--force", "--", dir]).catch(() => undefined)
          await rm(dir, { recursive: true, force: true }).catch(() => undefined)
          await this.git(["worktree", "prune"]).catch(() => undefined)
        }
        await this.git(["branch", "-D", "--", branch]).catch(() => undefined)
      }
    }
    if (added.code !== 0) throw failed(added)
  }

  async reopen({ dir, branch }: LoopWorktree): Promise<void> {
    if (!(await this.branchExists(branch))) throw new Error(`the loop's branch ${branch} is gone, and its work with it: start a new loop`)
    if (await exists(dir)) {
      const on = await this.git(["-C", dir, "symbolic-ref", "--quiet", "--short", "HEAD"])
      if (on.code !== 0 || on.stdout.trim() !== branch)
        throw new Error(
          `the loop's worktree ${dir} is not on its branch ${branch} (it is on ${on.stdout.trim() || "a detached HEAD, or is no worktree"}): put it back on ${branch}, or remove the folder`,
        )
      return
    }
    // The folder was removed by hand: git may still list it, so its stale entry goes first (the branch keeps the work).
    await this.git(["worktree", "prune"])
    const added = await this.git(["worktree", "add", "--", dir, branch])
    if (added.code !== 0) throw new Error(`could not add the loop worktree ${dir} again on branch ${branch}${detail(added.stderr)}`)
  }

  async commitAll({ dir, branch }: LoopWorktree, message: string): Promise<string | null> {
    const failed = (what: string, outcome: GitOutcome) => new Error(`could not ${what} in the worktree ${dir}${detail(outcome.stderr)}`)
    // Only on the loop's own branch: a worktree a pass switched to another branch is not committed to.
    const on = await this.git(["-C", dir, "symbolic-ref", "--quiet", "--short", "HEAD"])
    if (on.code !== 0 || on.stdout.trim() !== branch)
      throw new Error(`the worktree ${dir} is not on the branch ${branch} (it is on ${on.stdout.trim() || "a detached HEAD"})`)
    const added = await this.git(["-C", dir, "add", "--all"])
    if (added.code !== 0) throw failed("stage the changes", added)
    const staged = await this.git(["-C", dir, "diff", "--cached", "--quiet"])
    if (staged.code === 0) return null
    if (staged.code !== 1) throw failed("tell what is staged", staged)
    // The user's identity where the repository has one; Forge's otherwise. Never signed: a signing prompt would hang.
    const identity = (await this.git(["-C", dir, "config", "user.email"])).code === 0 ? [] : ["-c", "user.name=Forge", "-c", "user.email=forge@localhost"]
    const committed = await this.git([...identity, "-c", "commit.gpgsign=false", "-C", dir, "commit", "--quiet", "--no-verify", "-m", message])
    if (committed.code !== 0) throw failed("commit", committed)
    const hash = await this.git(["-C", dir, "rev-parse", "--short", "HEAD"])
    if (hash.code !== 0) throw failed("read the new commit", hash)
    return hash.stdout.trim()
  }

  async branchFacts({ dir, branch, base }: LoopWorktree): Promise<LoopBranchFacts> {
    const range = `${base}..refs/heads/${branch}`
    const counted = await this.git(["rev-list", "--count", range])
    if (counted.code !== 0) throw new Error(`could not count the commits on ${branch}${detail(counted.stderr)}`)
    const commits = Number(counted.stdout.trim())
    let last: LoopBranchFacts["last"] = null
    if (commits > 0) {
      const shown = await this.git(["log", "-1", "--format=%h%x00%s", `refs/heads/${branch}`])
      if (shown.code !== 0) throw new Error(`could not read the last commit on ${branch}${detail(shown.stderr)}`)
      const [hash = "", subject = ""] = shown.stdout.trim().split("\0")
      last = { hash, subject }
    }
    if (!(await exists(dir))) return { commits, last, uncommitted: null }
    // One line per changed path (unusual names are quoted on their line), untracked files included.
    const status = await this.git(["-C", dir, "status", "--porcelain", "--untracked-files=all"])
    if (status.code !== 0) throw new Error(`could not read the worktree ${dir}${detail(status.stderr)}`)
    const uncommitted = status.stdout.split("\n").filter((line) => line !== "").length
    return { commits, last, uncommitted }
  }

  private async branchExists(branch: string): Promise<boolean> {
    const shown = await this.git(["show-ref", "--verify", "--quiet", `refs/heads/${branch}`])
    if (shown.code === 0 || shown.code === 1) return shown.code === 0
    throw new Error(`could not tell whether the branch ${branch} exists in ${this.workspace}${detail(shown.stderr)}`)
  }

  /** Runs git on the workspace; a non-zero exit is an outcome, git missing or hanging is an error. */
  private git(args: string[]): Promise<GitOutcome> {
    return runGit(this.workspace, args, { purpose: "loop_start" })
  }
}

/** Whether anything (file, folder, link, even a dangling one) is at `file`. */
async function exists(file: string): Promise<boolean> {
  try {
    await lstat(file)
    return true
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === "ENOENT" || code === "ENOTDIR") return false
    throw error
  }
}

function realWorkspace(workspace: string): string {
  try {
    return realpathSync(workspace)
  } catch {
    return workspace
  }
}
