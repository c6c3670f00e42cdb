import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { loopCallPaths } from "../../../adapters/opencode/loop/loop.call.paths"
import { isInsideFolder, pathsOutsideWorktree } from "../../../machines/loop/loop.gates"

describe("the paths a loop's worktree gate asks about", () => {
  let root: string
  beforeEach(() => {
    root = realpathSync(mkdtempSync(path.join(tmpdir(), "loop-paths-")))
    mkdirSync(path.join(root, "wt", "src"), { recursive: true })
  })
  afterEach(() => rmSync(root, { recursive: true, force: true }))

  it("names what opencode's write tools and Forge's changing file tools write, relative ones from the session's folder", async () => {
    expect(await loopCallPaths("write", { filePath: "wt/src/a.ts", content: "x" }, root)).toEqual([path.join(root, "wt/src/a.ts")])
    expect(await loopCallPaths("forge_patch", { path: path.join(root, "wt/src/b.ts"), patches: [] }, root)).toEqual([path.join(root, "wt/src/b.ts")])
    const patch = "*** Begin Patch\n*** Update File: wt/src/a.ts\n*** Move to: src/a.ts\n*** End Patch"
    expect(await loopCallPaths("apply_patch", { patchText: patch }, root)).toEqual([path.join(root, "wt/src/a.ts"), path.join(root, "src/a.ts")])
  })

  it("names the folder a shell command runs in: its cwd, or the session's folder when it names none", async () => {
    expect(await loopCallPaths("forge_shell", { command: "npm test", cwd: path.join(root, "wt") }, root)).toEqual([path.join(root, "wt")])
    expect(await loopCallPaths("forge_shell", { command: "npm test" }, root)).toEqual([root])
    expect(await loopCallPaths("bash", { command: "ls", workdir: "wt" }, root)).toEqual([path.join(root, "wt")])
  })

  it("names nothing for a call that writes nothing and runs nowhere (a read, a search, malformed args)", async () => {
    expect(await loopCallPaths("forge_read", { path: path.join(root, "README.md") }, root)).toEqual([])
    expect(await loopCallPaths("grep", { pattern: "x" }, root)).toEqual([])
    expect(await loopCallPaths("forge_write", "not an object", root)).toEqual([])
  })

  it("resolves symbolic links, so a link inside the worktree to the project is outside it", async () => {
    symlinkSync(root, path.join(root, "wt", "escape"))
    const [named] = await loopCallPaths("forge_write", { path: path.join(root, "wt", "escape", "README.md") }, root)
    expect(named).toBe(path.join(root, "README.md"))
    expect(pathsOutsideWorktree([named ?? ""], path.join(root, "wt"))).toEqual([path.join(root, "README.md")])
  })

  it("counts a folder's own path and what is under it as inside, a sibling with a longer name as outside", () => {
    expect(isInsideFolder("/p/wt", "/p/wt")).toBe(true)
    expect(isInsideFolder("/p/wt/a/b", "/p/wt")).toBe(true)
    expect(isInsideFolder("/p/wt-2/a", "/p/wt")).toBe(false)
    expect(isInsideFolder("/p/a", "/p/wt/")).toBe(false)
  })
})
