import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { FORGE_FOLDER_IGNORE } from "../../../adapters/workspace/forge.folder"
import { createForgeRuntime } from "../../../src/runtime"
import { PLAN_BODY, memoryLogger, tempWorkspace } from "../plan/plan.helpers"

// Forge's folder (.opencode/forge: the database, the loops' worktrees) is this machine's state: opening the workspace
// database keeps it out of git, checked with the real git.

const cleanups: (() => void)[] = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup()
})

function git(cwd: string, ...args: string[]): string {
  const identity = ["-c", "user.name=forge-test", "-c", "user.email=forge-test@localhost", "-c", "commit.gpgsign=false"]
  return execFileSync("git", ["-C", cwd, ...identity, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim()
}

function committedWorkspace(): ReturnType<typeof tempWorkspace> {
  const ws = tempWorkspace()
  cleanups.push(ws.cleanup)
  git(ws.dir, "init", "-q")
  writeFileSync(path.join(ws.dir, "hello.txt"), "hello\n")
  git(ws.dir, "add", "hello.txt")
  git(ws.dir, "commit", "-q", "-m", "first")
  return ws
}

describe("the workspace's Forge folder", () => {
  it("is ignored by git once the database opens: git status stays clean with the database and its log there", async () => {
    const ws = committedWorkspace()
    const rt = await createForgeRuntime({ workspace: ws.dir, clock: ws.clock, log: memoryLogger() })
    try {
      await rt.plans.write("ses_1", PLAN_BODY)
      expect(existsSync(path.join(ws.dir, ".opencode", "forge", "forge.db"))).toBe(true)
      expect(readFileSync(path.join(ws.dir, ".opencode", "forge", ".gitignore"), "utf8")).toBe(FORGE_FOLDER_IGNORE)
      // The plan document is the user's to commit; nothing of Forge's folder is listed.
      expect(git(ws.dir, "status", "--porcelain", "--untracked-files=all").split("\n")).toEqual([expect.stringMatching(/^\?\? \.opencode\/plan\/.+\.md$/)])
    } finally {
      await rt.close()
    }
  })

  it("keeps a .gitignore the user put there", async () => {
    const ws = committedWorkspace()
    const ignore = path.join(ws.dir, ".opencode", "forge", ".gitignore")
    mkdirSync(path.dirname(ignore), { recursive: true })
    writeFileSync(ignore, "forge.db*\n")
    const rt = await createForgeRuntime({ workspace: ws.dir, clock: ws.clock, log: memoryLogger() })
    await rt.close()
    expect(readFileSync(ignore, "utf8")).toBe("forge.db*\n")
  })

  it("writes nothing beside a database file given explicitly", async () => {
    const ws = committedWorkspace()
    const file = path.join(ws.dir, "state", "elsewhere.db")
    const rt = await createForgeRuntime({ workspace: ws.dir, clock: ws.clock, log: memoryLogger(), databaseFile: file })
    await rt.close()
    expect(existsSync(file)).toBe(true)
    expect(existsSync(path.join(ws.dir, "state", ".gitignore"))).toBe(false)
  })
})
