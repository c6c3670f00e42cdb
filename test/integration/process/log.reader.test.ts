// Reading job logs in bounded pieces: tails, increments, line pages and the growth poll.
import { appendFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { logSize, readLines, readNew, readTail, readWindowLines, watchGrowth } from "../../../adapters/process/index"
import { makeTempDir, sleep, waitFor } from "./process.helpers"

const temp = makeTempDir()
afterAll(() => temp.remove())
let counter = 0
function logWith(text: string | Buffer): string {
  counter += 1
  const file = path.join(temp.dir, `reader-${counter}.log`)
  writeFileSync(file, text)
  return file
}

describe("readTail", () => {
  it("returns the last bytes starting at a line start", async () => {
    const file = logWith("first line\nsecond line\nthird\n")
    expect(await readTail(file, 14)).toBe("third\n")
    // A window that begins exactly at a line start keeps that whole line.
    expect(await readTail(file, 18)).toBe("second line\nthird\n")
    expect(await readTail(file, 1000)).toBe("first line\nsecond line\nthird\n")
  })

  it("never starts inside a UTF-8 character when the window holds no newline", async () => {
    const file = logWith("ééééé")
    expect(await readTail(file, 5)).toBe("éé")
  })

  it("names a missing log", async () => {
    const missing = path.join(temp.dir, "missing.log")
    await expect(readTail(missing, 10)).rejects.toThrow(`job log ${missing} does not exist`)
  })
})

describe("readNew", () => {
  it("reads increments from an offset and holds back a split character", async () => {
    const file = logWith("abc")
    const first = await readNew(file, 0, 100)
    expect(first).toEqual({ text: "abc", nextOffset: 3, size: 3, restarted: false })
    appendFileSync(file, "dé\n")
    // "d" plus the first byte of "é": the split byte waits for the next read.
    const second = await readNew(file, first.nextOffset, 2)
    expect(second).toMatchObject({ text: "d", nextOffset: 4 })
    expect(await readNew(file, second.nextOffset, 100)).toMatchObject({ text: "é\n", nextOffset: 7 })
    expect(await readNew(file, 7, 100)).toMatchObject({ text: "", nextOffset: 7 })
  })

  it("starts over when the log became shorter than the offset", async () => {
    const file = logWith("new\n")
    expect(await readNew(file, 100, 100)).toEqual({ text: "new\n", nextOffset: 4, size: 4, restarted: true })
  })
})

describe("readLines", () => {
  const file = logWith(`${Array.from({ length: 10 }, (_, i) => `line ${i}`).join("\n")}\npartial`)

  it("pages lines by offset and limit", async () => {
    expect(await readLines(file, { offset: 0, limit: 3 })).toEqual({
      lines: ["line 0", "line 1", "line 2"],
      offset: 0,
      nextOffset: 3,
      truncated: false,
    })
    expect(await readLines(file, { offset: 8, limit: 5 })).toEqual({
      lines: ["line 8", "line 9", "partial"],
      offset: 8,
      nextOffset: null,
      truncated: false,
    })
    expect(await readLines(file, { offset: 50, limit: 5 })).toEqual({ lines: [], offset: 50, nextOffset: null, truncated: false })
  })

  it("bounds a page by the window and cuts a line longer than it", async () => {
    expect(await readLines(file, { offset: 0, limit: 100, windowBytes: 16 })).toEqual({
      lines: ["line 0", "line 1"],
      offset: 0,
      nextOffset: 2,
      truncated: false,
    })
    const long = logWith(`${"x".repeat(100)}\nshort\n`)
    expect(await readLines(long, { offset: 0, limit: 5, windowBytes: 10 })).toEqual({
      lines: ["x".repeat(10)],
      offset: 0,
      nextOffset: 1,
      truncated: true,
    })
    expect(await readLines(long, { offset: 1, limit: 5, windowBytes: 10 })).toMatchObject({ lines: ["short"], nextOffset: null })
  })

  it("finds a line deep in a log larger than its scan chunks", async () => {
    const lines = Array.from({ length: 50_000 }, (_, i) => `entry number ${i}`)
    const big = logWith(`${lines.join("\n")}\n`)
    expect(await readLines(big, { offset: 43_210, limit: 2 })).toMatchObject({
      lines: ["entry number 43210", "entry number 43211"],
      nextOffset: 43_212,
    })
  })
})

describe("readWindowLines", () => {
  it("pages the lines of the window that ends at the log's end", async () => {
    const file = logWith("old one\nold two\nrecent a\nrecent b\n")
    expect(await readWindowLines(file, { offset: 0, limit: 10 })).toEqual({
      lines: ["old one", "old two", "recent a", "recent b"],
      offset: 0,
      total: 4,
      truncated: false,
    })
    // A 20-byte window reaches back into "old two", which is cut at the line start that follows.
    expect(await readWindowLines(file, { offset: 1, limit: 1, windowBytes: 20 })).toEqual({
      lines: ["recent b"],
      offset: 1,
      total: 2,
      truncated: true,
    })
  })

  it("sizes a log, a missing one as 0", async () => {
    expect(await logSize(logWith("12345"))).toBe(5)
    expect(await logSize(path.join(temp.dir, "not-yet.log"))).toBe(0)
  })
})

describe("watchGrowth", () => {
  it("measures growth from the size the log had when watching began", async () => {
    const file = logWith("already there\n")
    const seen: number[] = []
    const watch = watchGrowth(file, (size) => seen.push(size), { intervalMs: 10 })
    await sleep(60)
    expect(seen).toEqual([])
    appendFileSync(file, "x")
    expect(await waitFor(() => seen.length === 1, 10_000)).toBe(true)
    expect(seen).toEqual([15])
    watch.stop()
  })

  it("reports growth and stops cleanly", async () => {
    const file = logWith("")
    const seen: Array<[number, number]> = []
    const watch = watchGrowth(file, (size, previous) => seen.push([size, previous]), { intervalMs: 10 })
    appendFileSync(file, "12345")
    expect(await waitFor(() => seen.length === 1, 10_000)).toBe(true)
    appendFileSync(file, "678")
    expect(await waitFor(() => seen.length === 2, 10_000)).toBe(true)
    expect(seen).toEqual([
      [5, 0],
      [8, 5],
    ])
    watch.stop()
    appendFileSync(file, "more")
    await sleep(60)
    expect(seen.length).toBe(2)
  })
})
