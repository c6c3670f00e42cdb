import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { GitLoopWorktrees } from "../../../adapters/workspace/loop.worktrees"

// A loop's worktree and branch, made with the real git in throwaway repositories.

const roots: string[] = []
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true })
})

function tempDir(): string {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), "forge-worktrees-")))
  roots.push(root)
  return root
}

function git(cwd: string, ...args: string[]): string {
  const identity = ["-c", "user.name=forge-test", "-c", "user.email=forge-test@localhost", "-c", "commit.gpgsign=false"]
  return execFileSync("git", ["-C", cwd, ...identity, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim()
}

/** A repository with one commit holding hello.txt; resolves its root and that commit. */
function committedRepo(): { root: string; base: string } {
  const root = tempDir()
  git(root, "init", "-q")
  writeFileSync(path.join(root, "hello.txt"), "hello\n")
  git(root, "add", "hello.txt")
  git(root, "commit", "-q", "-m", "first")
  return { root, base: git(root, "rev-parse", "HEAD") }
}

const branchExists = (root: string, branch: string) => {
  try {
    git(root, "show-ref", "--verify", "--quiet", `refs/heads/${branch}`)
    return true
  } catch {
    return false
  }
}
const worktreeCount = (root: string) =>
  git(root, "worktree", "list", "--porcelain")
    .split("\n")
    .filter((line) => line.startsWith("worktree ")).length

/** Runs `body` with some environment variables replaced, restoring them afterwards. */
async function withEnv(vars: Record<string, string>, body: () => Promise<void>): Promise<void> {
  const saved = Object.fromEntries(Object.keys(vars).map((key) => [key, process.env[key]]))
  Object.assign(process.env, vars)
  try {
    await body()
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key]
      else process.env[key] = value
    }
  }
}

describe("head", () => {
  it("refuses a folder that is no git repository, saying to git init and commit", async () => {
    const root = tempDir()
    const error = await new GitLoopWorktrees(root).head().catch((e: Error) => e)
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).message).toContain("loop_start needs a git repository")
    expect((error as Error).message).toContain(root)
    expect((error as Error).message).toContain("run `git init` and commit")
  })

  it("refuses a repository without a commit, saying to commit once first", async () => {
    const root = tempDir()
    git(root, "init", "-q")
    const error = await new GitLoopWorktrees(root).head().catch((e: Error) => e)
    expect((error as Error).message).toContain("has none yet")
    expect((error as Error).message).toContain("commit once first")
    expect((error as Error).message).not.toContain("git init")
  })

  it("resolves the full sha of HEAD once there is a commit", async () => {
    const { root, base } = committedRepo()
    expect(base).toMatch(/^[0-9a-f]{40}$/)
    await expect(new GitLoopWorktrees(root).head()).resolves.toBe(base)
  })

  it("is not redirected by GIT_DIR, GIT_WORK_TREE or GIT_INDEX_FILE in the environment", async () => {
    const { root, base } = committedRepo()
    const other = committedRepo()
    git(other.root, "commit", "-q", "--allow-empty", "-m", "second")
    const elsewhere = { GIT_DIR: path.join(other.root, ".git"), GIT_WORK_TREE: other.root, GIT_INDEX_FILE: path.join(other.root, ".git", "index") }
    await withEnv(elsewhere, async () => {
      await expect(new GitLoopWorktrees(root).head()).resolves.toBe(base)
    })
  })

  it("says to install git when there is none on PATH", async () => {
    const { root } = committedRepo()
    await withEnv({ PATH: tempDir() }, async () => {
      await expect(new GitLoopWorktrees(root).head()).rejects.toThrow(/no `git` command was found on PATH: install git/)
    })
  })
})

describe("placeFor", () => {
  it("puts a loop under .opencode/forge/worktrees/<name> on the branch forge/loop/<name>", () => {
    const root = tempDir()
    expect(new GitLoopWorktrees(root).placeFor("fix-login-2")).toEqual({
      dir: path.join(root, ".opencode", "forge", "worktrees", "fix-login-2"),
      branch: "forge/loop/fix-login-2",
    })
  })

  it("refuses a name that is not a slug, naming it", () => {
    const worktrees = new GitLoopWorktrees(tempDir())
    for (const name of ["", "../escape", "a/b", "Upper", "-dash", "with space"]) {
      expect(() => worktrees.placeFor(name)).toThrow(`loop name ${JSON.stringify(name)} is not a slug`)
    }
  })
})

describe("create", () => {
  it("adds a worktree on the new branch at base, hidden from the main checkout's git status", async () => {
    const { root, base } = committedRepo()
    const worktrees = new GitLoopWorktrees(root)
    const place = worktrees.placeFor("first")
    expect(await worktrees.isTaken("first")).toBe(false)

    await worktrees.create({ ...place, base })

    expect(readFileSync(path.join(place.dir, "hello.txt"), "utf8")).toBe("hello\n")
    expect(git(place.dir, "rev-parse", "--abbrev-ref", "HEAD")).toBe("forge/loop/first")
    expect(git(place.dir, "rev-parse", "HEAD")).toBe(base)
    expect(readFileSync(path.join(root, ".opencode", "forge", "worktrees", ".gitignore"), "utf8")).toBe("*\n")
    expect(git(root, "status", "--porcelain")).toBe("")
    expect(await worktrees.isTaken("first")).toBe(true)
  })

  it("runs none of the repository's hooks: a post-checkout hook the repository names never runs", async () => {
    const { root, base } = committedRepo()
    const hooks = path.join(root, "hooks")
    mkdirSync(hooks)
    const marker = path.join(root, "hook-ran")
    writeFileSync(path.join(hooks, "post-checkout"), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 })
    git(root, "config", "core.hooksPath", hooks)
    const worktrees = new GitLoopWorktrees(root)
    await worktrees.create({ ...worktrees.placeFor("hooked"), base })
    expect(existsSync(path.join(worktrees.placeFor("hooked").dir, "hello.txt"))).toBe(true)
    expect(existsSync(marker), "the post-checkout hook ran").toBe(false)
  })

  it("keeps a .gitignore already in the worktrees folder", async () => {
    const { root, base } = committedRepo()
    const ignore = path.join(root, ".opencode", "forge", "worktrees", ".gitignore")
    mkdirSync(path.dirname(ignore), { recursive: true })
    writeFileSync(ignore, "*\n# kept\n")
    const worktrees = new GitLoopWorktrees(root)
    await worktrees.create({ ...worktrees.placeFor("first"), base })
    expect(readFileSync(ignore, "utf8")).toBe("*\n# kept\n")
  })

  it("fails on a branch that exists, naming it, leaving no folder and the first worktree as it was", async () => {
    const { root, base } = committedRepo()
    const worktrees = new GitLoopWorktrees(root)
    const first = worktrees.placeFor("first")
    await worktrees.create({ ...first, base })
    const otherDir = worktrees.placeFor("other").dir

    await expect(worktrees.create({ dir: otherDir, branch: first.branch, base })).rejects.toThrow(
      new RegExp(`could not add the loop worktree ${otherDir} on branch forge/loop/first: .*already exists`),
    )

    expect(existsSync(otherDir)).toBe(false)
    expect(branchExists(root, first.branch)).toBe(true)
    expect(git(first.dir, "rev-parse", "--abbrev-ref", "HEAD")).toBe("forge/loop/first")
    expect(worktreeCount(root)).toBe(2)
  })

  it("refuses a non-empty folder at dir, leaving its content and no branch", async () => {
    const { root, base } = committedRepo()
    const worktrees = new GitLoopWorktrees(root)
    const place = worktrees.placeFor("busy")
    mkdirSync(place.dir, { recursive: true })
    writeFileSync(path.join(place.dir, "mine.txt"), "keep me\n")

    await expect(worktrees.create({ ...place, base })).rejects.toThrow(`could not add the loop worktree ${place.dir} on branch forge/loop/busy`)

    expect(readdirSync(place.dir)).toEqual(["mine.txt"])
    expect(readFileSync(path.join(place.dir, "mine.txt"), "utf8")).toBe("keep me\n")
    expect(branchExists(root, place.branch)).toBe(false)
    expect(worktreeCount(root)).toBe(1)
  })
})

describe("isTaken", () => {
  it("is true when only the branch exists, or only something at the folder", async () => {
    const { root } = committedRepo()
    const worktrees = new GitLoopWorktrees(root)
    git(root, "branch", "forge/loop/branch-only")
    expect(await worktrees.isTaken("branch-only")).toBe(true)

    const { dir } = worktrees.placeFor("folder-only")
    mkdirSync(path.dirname(dir), { recursive: true })
    writeFileSync(dir, "a file where the folder would go\n")
    expect(await worktrees.isTaken("folder-only")).toBe(true)
    expect(await worktrees.isTaken("free")).toBe(false)
  })
})

/** A repository with one commit and the loop `name`'s worktree made on it. */
async function loopWorktree(name: string) {
  const { root, base } = committedRepo()
  const worktrees = new GitLoopWorktrees(root)
  const worktree = { ...worktrees.placeFor(name), base }
  await worktrees.create(worktree)
  return { root, base, worktrees, worktree }
}

describe("branchFacts", () => {
  it("says nothing was committed on a fresh branch, then counts the commits made on it and the paths left uncommitted", async () => {
    const { root, worktrees, worktree } = await loopWorktree("facts")
    expect(await worktrees.branchFacts(worktree)).toEqual({ commits: 0, last: null, uncommitted: 0 })

    writeFileSync(path.join(worktree.dir, "a.txt"), "a\n")
    git(worktree.dir, "add", "a.txt")
    git(worktree.dir, "commit", "-q", "-m", "section 1: Lexer")
    writeFileSync(path.join(worktree.dir, "b.txt"), "b\n")
    git(worktree.dir, "add", "b.txt")
    git(worktree.dir, "commit", "-q", "-m", "section 2: Parser")
    // One changed tracked file, one untracked file in a new folder, one with a name git quotes.
    writeFileSync(path.join(worktree.dir, "hello.txt"), "changed\n")
    mkdirSync(path.join(worktree.dir, "new"))
    writeFileSync(path.join(worktree.dir, "new", "c.txt"), "c\n")
    writeFileSync(path.join(worktree.dir, "odd\nname.txt"), "odd\n")
    // The main checkout moving on changes nothing the branch holds.
    git(root, "commit", "-q", "--allow-empty", "-m", "main moved")

    const facts = await worktrees.branchFacts(worktree)
    expect(facts).toEqual({ commits: 2, last: { hash: git(worktree.dir, "rev-parse", "--short", "HEAD"), subject: "section 2: Parser" }, uncommitted: 3 })
  })

  it("says the worktree is gone when its folder was removed, and still reads the branch", async () => {
    const { root, worktrees, worktree } = await loopWorktree("gone")
    git(root, "worktree", "remove", "--force", worktree.dir)
    expect(await worktrees.branchFacts(worktree)).toEqual({ commits: 0, last: null, uncommitted: null })
  })

  it("throws, naming the branch, when the branch no longer exists", async () => {
    const { root, base } = committedRepo()
    const worktrees = new GitLoopWorktrees(root)
    const worktree = { ...worktrees.placeFor("deleted"), base }
    await expect(worktrees.branchFacts(worktree)).rejects.toThrow(/could not count the commits on forge\/loop\/deleted/)
  })
})

describe("commitAll", () => {
  it("commits everything the worktree holds on the loop's branch, with the repository's identity or Forge's, and nothing when nothing changed", async () => {
    const { root, base, worktrees, worktree } = await loopWorktree("commits")
    expect(await worktrees.commitAll(worktree, "section 1: Empty")).toBeNull()

    writeFileSync(path.join(worktree.dir, "a.txt"), "a\n")
    writeFileSync(path.join(worktree.dir, "hello.txt"), "changed\n")
    // No identity anywhere (this machine's own global one hidden): Forge's.
    const saved = { global: process.env.GIT_CONFIG_GLOBAL, system: process.env.GIT_CONFIG_NOSYSTEM }
    process.env.GIT_CONFIG_GLOBAL = "/dev/null"
    process.env.GIT_CONFIG_NOSYSTEM = "1"
    let first: string | null
    try {
      first = await worktrees.commitAll(worktree, "section 1: Lexer")
    } finally {
      for (const [key, value] of [
        ["GIT_CONFIG_GLOBAL", saved.global],
        ["GIT_CONFIG_NOSYSTEM", saved.system],
      ] as const)
        if (value === undefined) delete process.env[key]
        else process.env[key] = value
    }
    expect(first).toBe(git(worktree.dir, "rev-parse", "--short", "HEAD"))
    expect(git(worktree.dir, "log", "-1", "--format=%s|%an")).toBe("section 1: Lexer|Forge")
    expect(git(worktree.dir, "status", "--porcelain")).toBe("")
    expect(git(root, "rev-parse", "HEAD"), "the main checkout stays where it was").toBe(base)

    git(root, "config", "user.name", "Ada")
    git(root, "config", "user.email", "ada@example.com")
    rmSync(path.join(worktree.dir, "a.txt"))
    await worktrees.commitAll(worktree, "section 2: Parser")
    expect(git(worktree.dir, "log", "-1", "--format=%s|%an|%ae")).toBe("section 2: Parser|Ada|ada@example.com")
    expect(await worktrees.branchFacts(worktree)).toMatchObject({ commits: 2, last: { subject: "section 2: Parser" }, uncommitted: 0 })
  })

  it("never commits to a branch the worktree was switched to, and runs none of the repository's hooks", async () => {
    const { root, worktrees, worktree } = await loopWorktree("switched")
    const hooks = path.join(root, "hooks")
    mkdirSync(hooks)
    writeFileSync(path.join(hooks, "pre-commit"), "#!/bin/sh\nexit 1\n", { mode: 0o755 })
    git(root, "config", "core.hooksPath", hooks)
    writeFileSync(path.join(worktree.dir, "b.txt"), "b\n")
    expect(await worktrees.commitAll(worktree, "section 1: Hooked")).toMatch(/^[0-9a-f]{7,}$/)

    git(worktree.dir, "checkout", "-q", "-b", "elsewhere")
    writeFileSync(path.join(worktree.dir, "c.txt"), "c\n")
    await expect(worktrees.commitAll(worktree, "section 2: Elsewhere")).rejects.toThrow(/is not on the branch forge\/loop\/switched \(it is on elsewhere\)/)
  })
})

// A restarted loop (loop_status {restart}) asks for its worktree again: where it stands, or made again from its branch.
describe("reopen", () => {
  it("keeps a worktree that is there on its branch, its uncommitted work included", async () => {
    const { worktrees, worktree } = await loopWorktree("kept")
    writeFileSync(path.join(worktree.dir, "wip.txt"), "half done\n")
    await worktrees.reopen(worktree)
    expect(readFileSync(path.join(worktree.dir, "wip.txt"), "utf8")).toBe("half done\n")
    expect(git(worktree.dir, "rev-parse", "--abbrev-ref", "HEAD")).toBe(worktree.branch)
  })

  it("adds the worktree again from its branch when its folder was removed by hand, the branch's commits in it", async () => {
    const { root, worktrees, worktree } = await loopWorktree("removed")
    writeFileSync(path.join(worktree.dir, "a.txt"), "a\n")
    await worktrees.commitAll(worktree, "section 1: A")
    rmSync(worktree.dir, { recursive: true, force: true })
    await worktrees.reopen(worktree)
    expect(readFileSync(path.join(worktree.dir, "a.txt"), "utf8")).toBe("a\n")
    expect(git(worktree.dir, "log", "-1", "--format=%s")).toBe("section 1: A")
    expect(worktreeCount(root)).toBe(2)
  })

  it("refuses, naming it, a worktree moved to another branch, and a branch that is gone; nothing is changed", async () => {
    const { root, worktrees, worktree } = await loopWorktree("moved")
    git(worktree.dir, "checkout", "-q", "-b", "elsewhere")
    await expect(worktrees.reopen(worktree)).rejects.toThrow(/is not on its branch forge\/loop\/moved \(it is on elsewhere\)/)
    expect(git(worktree.dir, "rev-parse", "--abbrev-ref", "HEAD")).toBe("elsewhere")
    git(root, "worktree", "remove", "--force", worktree.dir)
    git(root, "branch", "-D", worktree.branch)
    await expect(worktrees.reopen(worktree)).rejects.toThrow(/the loop's branch forge\/loop\/moved is gone/)
    expect(existsSync(worktree.dir)).toBe(false)
  })
})
