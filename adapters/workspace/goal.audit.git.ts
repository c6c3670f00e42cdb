import { copyFile, mkdtemp, rm, stat, utimes } from "node:fs/promises"
import { tmpdir } from "node:os"
import path from "node:path"
import type { GoalAuditWorkspace } from "../../services/goal/goal.ports"
import { detail, runGit } from "./git.run"

// The workspace as a goal's audit sees it. A snapshot is a git tree of the workspace's files as they are (tracked and
// untracked, ignored ones left out), written through a temporary index: the user's index, branch, stash and working
// tree are never touched, and the tree's objects are loose objects git collects in time. The audit's diff runs from
// the snapshot taken when the goal was armed to one taken now, so the work done before the goal is not the auditor's.

/** The most diff text read from git: the brief carries less, and says where it was cut. */
const DIFF_MAX_BYTES = 4 * 1024 * 1024

const PURPOSE = "a goal's audit"

export class GitAuditWorkspace implements GoalAuditWorkspace {
  constructor(private readonly workspace: string) {}

  async snapshot(): Promise<string | null> {
    const inside = await runGit(this.workspace, ["rev-parse", "--is-inside-work-tree"], { purpose: PURPOSE })
    if (inside.code !== 0 || inside.stdout.trim() !== "true") return null
    const indexPath = await runGit(this.workspace, ["rev-parse", "--path-format=absolute", "--git-path", "index"], { purpose: PURPOSE })
    const folder = await mkdtemp(path.join(tmpdir(), "forge-audit-index-"))
    try {
      const index = path.join(folder, "index")
      // The user's index, copied with its own times: git then re-reads only the files whose stat changed, and still
      // compares the content of an entry as new as the index itself (racy git: a same-size edit in the same second).
      if (indexPath.code === 0) await copyIndex(indexPath.stdout.trim(), index)
      const env = { GIT_INDEX_FILE: index }
      const added = await runGit(this.workspace, ["add", "--all", "--", "."], { purpose: PURPOSE, env })
      if (added.code !== 0) throw new Error(`could not snapshot the workspace ${this.workspace}${detail(added.stderr)}`)
      const tree = await runGit(this.workspace, ["write-tree"], { purpose: PURPOSE, env })
      if (tree.code !== 0) throw new Error(`could not snapshot the workspace ${this.workspace}${detail(tree.stderr)}`)
      return tree.stdout.trim()
    } finally {
      await rm(folder, { recursive: true, force: true })
    }
  }

  async diff(base: string): Promise<string> {
    const now = await this.snapshot()
    if (now === null) throw new Error(`${this.workspace} is no longer inside a git work tree`)
    const args = ["diff", "--no-color", "--no-ext-diff", "--no-textconv", "--relative", base, now, "--", "."]
    try {
      const diff = await runGit(this.workspace, args, { purpose: PURPOSE, maxBuffer: DIFF_MAX_BYTES })
      if (diff.code !== 0) throw new Error(`could not diff the workspace against its snapshot ${base}${detail(diff.stderr)}`)
      return diff.stdout
    } catch (error) {
      if ((error as { code?: unknown }).code !== "ERR_CHILD_PROCESS_STDIO_MAXBUFFER") throw error
      // Too large to read whole: the files and their line counts, which the auditor reads in the workspace.
      const stat = await runGit(this.workspace, ["diff", "--no-color", "--stat=200", "--relative", base, now, "--", "."], { purpose: PURPOSE })
      return `[the diff is larger than ${DIFF_MAX_BYTES / 1024 / 1024} MiB: the files that changed]\n${stat.stdout}`
    }
  }
}

/** Copies an index file keeping its access and change times; a missing index (a repository with no commit) is none. */
async function copyIndex(from: string, to: string): Promise<void> {
  try {
    const times = await stat(from)
    await copyFile(from, to)
    await utimes(to, times.atime, times.mtime)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error
  }
}
