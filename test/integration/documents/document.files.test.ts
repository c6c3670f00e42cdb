import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { FsDocumentFiles } from "../../../adapters/workspace/document.files"

// The document-files port on disk for a folder that is not the plan's: a goal-like `.opencode/goal/`. Names and
// real paths are confined to the folder and the workspace; writes are atomic.

describe("a folder of documents on disk", () => {
  let workspace: string
  let outside: string
  let files: FsDocumentFiles
  const folder = () => path.join(workspace, ".opencode/goal")
  beforeEach(() => {
    workspace = mkdtempSync(path.join(tmpdir(), "forge-docs-"))
    outside = mkdtempSync(path.join(tmpdir(), "forge-docs-outside-"))
    files = new FsDocumentFiles(workspace, { folder: ".opencode/goal", kind: "goal" })
  })
  afterEach(() => {
    rmSync(workspace, { recursive: true, force: true })
    rmSync(outside, { recursive: true, force: true })
  })

  it("writes, lists, reads and stamps its own documents, and leaves no temp file", async () => {
    expect(await files.list()).toEqual([])
    expect(await files.read(".opencode/goal/a.md")).toBeUndefined()
    expect(files.stamp(".opencode/goal/a.md")).toBeUndefined()
    await files.write(".opencode/goal/a.md", "one\n")
    const first = files.stamp(".opencode/goal/a.md")
    await files.write(".opencode/goal/a.md", "two\n")
    writeFileSync(path.join(folder(), "notes.txt"), "not a document")
    expect(await files.list()).toEqual([".opencode/goal/a.md"])
    expect(await files.read(".opencode/goal/a.md")).toBe("two\n")
    expect(files.stamp(".opencode/goal/a.md")).not.toBe(first)
    expect(readdirSync(folder()).sort()).toEqual(["a.md", "notes.txt"])
  })

  it("writes as a compare-and-swap on a stamp: a file changed since is left as it is, and no temp file stays", async () => {
    await files.write(".opencode/goal/a.md", "one\n")
    const read = files.stamp(".opencode/goal/a.md")
    writeFileSync(path.join(folder(), "a.md"), "edited elsewhere\n")
    await expect(files.write(".opencode/goal/a.md", "two\n", read)).rejects.toThrow(/\.opencode\/goal\/a\.md changed on disk while Forge was updating it/)
    expect(await files.read(".opencode/goal/a.md")).toBe("edited elsewhere\n")
    expect(readdirSync(folder())).toEqual(["a.md"])
    await files.write(".opencode/goal/a.md", "three\n", files.stamp(".opencode/goal/a.md"))
    expect(await files.read(".opencode/goal/a.md")).toBe("three\n")
  })

  it("refuses a path outside its folder, naming the kind and the folder", async () => {
    await expect(files.read(".opencode/plan/a.md")).rejects.toThrow('goal path ".opencode/plan/a.md" is outside .opencode/goal/')
    await expect(files.write("../escape.md", "x")).rejects.toThrow(/^goal path "\.\.\/escape\.md" is outside \.opencode\/goal\//)
  })

  it("neither reads nor writes through a link that leaves the workspace", async () => {
    mkdirSync(folder(), { recursive: true })
    writeFileSync(path.join(outside, "secret.md"), "secret\n")
    symlinkSync(path.join(outside, "secret.md"), path.join(folder(), "leak.md"))
    await expect(files.read(".opencode/goal/leak.md")).rejects.toThrow(
      /^goal document \.opencode\/goal\/leak\.md resolves to .*secret\.md, outside the workspace .*: Forge does not read goal documents through symbolic links/,
    )
    await expect(files.write(".opencode/goal/leak.md", "overwritten\n")).rejects.toThrow(/Forge does not write goal documents/)
    expect(readFileSync(path.join(outside, "secret.md"), "utf8")).toBe("secret\n")
  })

  it("answers a folder named like a document with a clear error", async () => {
    mkdirSync(path.join(folder(), "odd.md"), { recursive: true })
    await expect(files.read(".opencode/goal/odd.md")).rejects.toThrow("goal document .opencode/goal/odd.md is a folder, not a file")
    await expect(files.write(".opencode/goal/odd.md", "x")).rejects.toThrow(
      /is a folder, not a file: move it out of \.opencode\/goal\/ so the goal can be written/,
    )
  })
})
