import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { GitAuditWorkspace } from "../../../adapters/workspace/goal.audit.git"

// A goal audit's view of the workspace, with the real git: the snapshot at the arm and the diff of the work since.
// The user's index, branch, stash and working tree are never touched.

const roots: string[] = []
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true })
})

function tempDir(): string {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), "forge-audit-git-")))
  roots.push(root)
  return root
}

function git(cwd: string, ...args: string[]): string {
  const identity = ["-c", "user.name=forge-test", "-c", "user.email=forge-test@localhost", "-c", "commit.gpgsign=false"]
  return execFileSync("git", ["-C", cwd, ...identity, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim()
}

/** A repository with a committed file, an ignored folder and a change not yet committed (the work before the goal). */
function workspace(): string {
  const root = tempDir()
  git(root, "init", "-q")
  writeFileSync(path.join(root, ".gitignore"), "build/\n")
  writeFileSync(path.join(root, "login.ts"), "export const TIMEOUT = 30\n")
  writeFileSync(path.join(root, "old.ts"), "export const OLD = 1\n")
  git(root, "add", ".")
  git(root, "commit", "-q", "-m", "first")
  writeFileSync(path.join(root, "notes.md"), "work from before the goal\n")
  git(root, "add", "notes.md")
  return root
}

describe("GitAuditWorkspace", () => {
  it("diffs only the work since the snapshot: changed, new and deleted files, never ignored ones", async () => {
    const root = workspace()
    const audit = new GitAuditWorkspace(root)
    const base = await audit.snapshot()
    expect(base).toMatch(/^[0-9a-f]{40}$/)

    writeFileSync(path.join(root, "login.ts"), "export const TIMEOUT = 40\n")
    writeFileSync(path.join(root, "session.ts"), "export const KEEP = true\n")
    rmSync(path.join(root, "old.ts"))
    mkdirSync(path.join(root, "build"))
    writeFileSync(path.join(root, "build", "out.js"), "ignored\n")

    const diff = await audit.diff(base as string)
    expect(diff).toContain("-export const TIMEOUT = 30\n+export const TIMEOUT = 40")
    expect(diff).toContain("+++ b/session.ts")
    expect(diff).toContain("--- a/old.ts")
    expect(diff).not.toContain("build/out.js")
    // The work from before the goal is in the base, so it is nobody's finding.
    expect(diff).not.toContain("work from before the goal")
  })

  it("sees a same-size edit whose stat the index cannot tell apart (racy git), as the user's own git status would", async () => {
    const root = tempDir()
    git(root, "init", "-q")
    // Only the size and the mtime's seconds tell a file changed: the edit below keeps both.
    git(root, "config", "core.trustctime", "false")
    git(root, "config", "core.checkStat", "minimal")
    const file = path.join(root, "login.ts")
    const past = new Date(Date.now() - 3_600_000)
    writeFileSync(file, "export const TIMEOUT = 30\n")
    utimesSync(file, past, past)
    git(root, "add", "login.ts")
    git(root, "commit", "-q", "-m", "first")
    // The index written in the same second as the file: git compares that entry's content, never trusting its stat.
    const index = path.join(root, ".git", "index")
    utimesSync(index, past, past)
    const audit = new GitAuditWorkspace(root)
    const base = await audit.snapshot()
    writeFileSync(file, "export const TIMEOUT = 40\n")
    utimesSync(file, past, past)
    expect(await audit.diff(base as string)).toContain("-export const TIMEOUT = 30\n+export const TIMEOUT = 40")
    utimesSync(index, past, past)
    expect(git(root, "status", "--porcelain"), "the user's own git sees the edit").toBe("M login.ts")
  })

  it("leaves the user's index, branch, stash and working tree as they were", async () => {
    const root = workspace()
    writeFileSync(path.join(root, "draft.ts"), "untracked\n")
    const index = readFileSync(path.join(root, ".git", "index"))
    const before = { status: git(root, "status", "--porcelain"), head: git(root, "rev-parse", "HEAD"), stash: git(root, "stash", "list") }
    const audit = new GitAuditWorkspace(root)
    const base = await audit.snapshot()
    writeFileSync(path.join(root, "login.ts"), "changed\n")
    await audit.diff(base as string)
    writeFileSync(path.join(root, "login.ts"), "export const TIMEOUT = 30\n")
    expect(readFileSync(path.join(root, ".git", "index")).equals(index), "the index's bytes").toBe(true)
    expect({ status: git(root, "status", "--porcelain"), head: git(root, "rev-parse", "HEAD"), stash: git(root, "stash", "list") }).toEqual(before)
  })

  it("diffs a folder of a repository on its own, with its paths", async () => {
    const root = workspace()
    const sub = path.join(root, "app")
    mkdirSync(sub)
    writeFileSync(path.join(sub, "main.ts"), "one\n")
    const audit = new GitAuditWorkspace(sub)
    const base = await audit.snapshot()
    writeFileSync(path.join(sub, "main.ts"), "two\n")
    writeFileSync(path.join(root, "login.ts"), "outside the folder\n")
    const diff = await audit.diff(base as string)
    expect(diff).toContain("+++ b/main.ts")
    expect(diff).not.toContain("login.ts")
  })

  it("has no snapshot outside git, and names a base git does not know", async () => {
    expect(await new GitAuditWorkspace(tempDir()).snapshot()).toBeNull()
    const audit = new GitAuditWorkspace(workspace())
    await expect(audit.diff("0".repeat(40))).rejects.toThrow(/^could not diff the workspace against its snapshot 0{40} \(git: /)
  })
})
