import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { writeCallFields } from "../../../adapters/opencode/file/write.screen"

// What a forge_write over an existing file shows on its TUI line, read from real files at once (the line is drawn
// before the call runs): lines added and removed, and nothing read that could hang, leave the workspace or be huge.

/** coreutils' mkfifo: Node has no call that makes a FIFO. */
const MKFIFO = "mkfifo"

const roots: string[] = []
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true })
})

function workspace(): string {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), "forge-write-line-")))
  roots.push(root)
  mkdirSync(path.join(root, "project"))
  return path.join(root, "project")
}

describe("a forge_write line over an existing file", () => {
  it("says what it replaces: its lines and size, and the lines added and removed", () => {
    const ws = workspace()
    const file = path.join(ws, "a.ts")
    writeFileSync(file, "one\ntwo\nthree\n")
    expect(writeCallFields({ path: file, content: "one\nTWO\nthree\nfour\n", overwrite: true }, ws)).toEqual({ replaces: "3 lines, 14 bytes: +2 −1 lines" })
    expect(writeCallFields({ path: file, content: "three\none\ntwo\n", overwrite: true }, ws), "moved lines are no change").toEqual({
      replaces: "3 lines, 14 bytes: +0 −0 lines",
    })
    expect(writeCallFields({ path: file, content: "one\ntwo\nthree\n", overwrite: true }, ws)).toEqual({ replaces: "3 lines, 14 bytes, with the same content" })
    expect(writeCallFields({ path: file, content: "x\n" }, ws).replaces).toBe("3 lines, 14 bytes: +1 −3 lines (without overwrite the call is refused)")
  })

  it("shows nothing for a new file, a relative path, a file outside the workspace (a link out included) or a folder", () => {
    const ws = workspace()
    const outside = path.join(path.dirname(ws), "secret.txt")
    writeFileSync(outside, "secret\n")
    symlinkSync(outside, path.join(ws, "link.txt"))
    mkdirSync(path.join(ws, "dir"))
    for (const target of [path.join(ws, "new.ts"), "a.ts", outside, path.join(ws, "link.txt"), path.join(ws, "dir")])
      expect(writeCallFields({ path: target, content: "x\n", overwrite: true }, ws), target).toEqual({})
    expect(writeCallFields({ path: 7, content: "x" }, ws)).toEqual({})
    expect(writeCallFields("junk", ws)).toEqual({})
  })

  it("never waits on a FIFO, and names a file too large to compare by its size", () => {
    const ws = workspace()
    const fifo = path.join(ws, "pipe")
    execFileSync(MKFIFO, [fifo])
    expect(writeCallFields({ path: fifo, content: "x\n", overwrite: true }, ws)).toEqual({})
    const big = path.join(ws, "big.log")
    writeFileSync(big, "x".repeat(2 * 1024 * 1024))
    expect(writeCallFields({ path: big, content: "x\n", overwrite: true }, ws)).toEqual({ replaces: "a file of 2.0 MB, too large to compare on this line" })
  })
})
