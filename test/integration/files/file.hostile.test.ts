import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from "node:fs"
import path from "node:path"
import type { Hooks, ToolDefinition } from "@opencode-ai/plugin"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { fileFragment } from "../../../adapters/opencode/file/file.fragment"
import { createFileTools } from "../../../adapters/opencode/file/file.tools"
import type { FragmentContext } from "../../../adapters/opencode/forge.fragment"
import { ready } from "../../../adapters/opencode/lazy"
import { createWebFetch } from "../../../adapters/network/web.fetch"
import { SqliteJournalStore } from "../../../adapters/storage/journal.repository"
import { type LifecycleStore, openLifecycleStore } from "../../../adapters/storage/lifecycle.store"
import { fsToolFiles } from "../../../adapters/workspace/tool.files"
import { MAX_FILE_BYTES } from "../../../services/files/file.kind"
import { ForgeFiles } from "../../../services/files/forge.files"
import { FileJournal } from "../../../services/files/journal"
import { RewindPreviews } from "../../../adapters/opencode/file/rewind.previews"
import { callRaw, toolContext } from "../opencode/tool.context"
import { memoryLogger } from "../plan/plan.helpers"
import { tempDir } from "../../temp.dir"

// The forge file tools against hostile input, over real files and the real journal in SQLite: paths that name
// something else than they seem, files too large to hold, a journal that fails after the disk changed.

describe("forge file tools, hostile input", () => {
  let work: string
  let db: LifecycleStore
  let files: ForgeFiles
  let tools: Record<string, ToolDefinition>
  let userTurns: { id: string; at: number }[]
  let tick: number

  const call = (tool: string, args: unknown) => callRaw(tools[tool], args, toolContext("ses_1", work))
  const file = (name: string) => path.join(work, name)

  beforeEach(async () => {
    const root = tempDir("forge-file-hostile-")
    work = path.join(root, "work")
    mkdirSync(work)
    db = await openLifecycleStore(path.join(root, "db"))
    tick = 1_700_000_000_000
    userTurns = []
    const journal = new FileJournal({ store: new SqliteJournalStore(db.connection), files: fsToolFiles, clock: { now: () => ++tick } })
    files = new ForgeFiles({ files: fsToolFiles, journal })
    tools = createFileTools({
      workspace: work,
      files: async () => files,
      web: async () => createWebFetch(),
      actor: async (ctx) => ({ session: ctx.sessionID, message: ctx.messageID, turn: userTurns.at(-1)?.id }),
      userTurns: async () => userTurns,
      previews: new RewindPreviews(),
      search: async () => {
        throw new Error("this test does not search")
      },
    })
  })
  afterEach(async () => db.close())

  it("refuses a file path ending with a slash instead of dropping it (dir/ would create a file named dir)", async () => {
    writeFileSync(file("a.txt"), "a\n")
    await expect(call("forge_write", { path: `${file("newdir")}/`, content: "x" })).rejects.toThrow(
      `forge_write: path "${file("newdir")}/" ends with "/", so it names a folder`,
    )
    expect(existsSync(file("newdir"))).toBe(false)
    await expect(call("forge_read", { path: `${file("a.txt")}/` })).rejects.toThrow(/forge_read: path .*a\.txt\/" ends with "\/"/)
  })

  it("removes no file through a symbolic link (the link would dangle), but a file under a linked folder is its own", async () => {
    writeFileSync(file("real.txt"), "r\n")
    symlinkSync(file("real.txt"), file("link.txt"))
    await expect(call("forge_remove", { path: file("link.txt") })).rejects.toThrow(
      `forge_remove: ${file("link.txt")} is a symbolic link to ${file("real.txt")}; forge_remove removes files, not links`,
    )
    expect(readFileSync(file("real.txt"), "utf8")).toBe("r\n")
    expect(lstatSync(file("link.txt")).isSymbolicLink()).toBe(true)
    mkdirSync(file("vendor"))
    writeFileSync(file("vendor/v.txt"), "v\n")
    symlinkSync(file("vendor"), file("lib"))
    await call("forge_remove", { path: file("lib/v.txt") })
    expect(existsSync(file("vendor/v.txt"))).toBe(false)
    await call("forge_undo", { path: file("lib/v.txt") })
    expect(readFileSync(file("vendor/v.txt"), "utf8")).toBe("v\n")
  })

  it("refuses a symbolic link that points nowhere instead of replacing the link with a file", async () => {
    const nowhere = path.join(path.dirname(work), "outside", "gone.txt")
    symlinkSync(nowhere, file("dangling.txt"))
    await expect(call("forge_write", { path: file("dangling.txt"), content: "x\n" })).rejects.toThrow(
      `forge_write: ${file("dangling.txt")} is a symbolic link to ${nowhere}, which does not exist; nothing was changed.`,
    )
    expect(lstatSync(file("dangling.txt")).isSymbolicLink()).toBe(true)
    expect(existsSync(nowhere)).toBe(false)
  })

  it("keeps a file's permission bits through patch, overwrite and undo (a script stays executable)", async () => {
    writeFileSync(file("run.sh"), "#!/bin/sh\necho hi\n")
    chmodSync(file("run.sh"), 0o750)
    await call("forge_patch", { path: file("run.sh"), patches: [{ operation: "replace", search: "hi", content: "ho" }] })
    expect(statSync(file("run.sh")).mode & 0o777).toBe(0o750)
    await call("forge_write", { path: file("run.sh"), content: "#!/bin/sh\n", overwrite: true })
    expect(statSync(file("run.sh")).mode & 0o777).toBe(0o750)
    await call("forge_undo", { path: file("run.sh") })
    expect(readFileSync(file("run.sh"), "utf8")).toBe("#!/bin/sh\necho ho\n")
    expect(statSync(file("run.sh")).mode & 0o777).toBe(0o750)
  })

  it("refuses a file too large to hold whole, by name and size, before reading it", async () => {
    writeFileSync(file("huge.log"), "")
    truncateSync(file("huge.log"), MAX_FILE_BYTES + 1) // sparse: no disk, no time
    const tooLarge = /huge\.log is 50\.0 MB, over the 50\.0 MB the forge file tools read, change and journal whole; nothing was changed/
    await expect(call("forge_read", { path: file("huge.log") })).rejects.toThrow(tooLarge)
    await expect(call("forge_patch", { path: file("huge.log"), patches: [{ operation: "append", search: "x", content: "y" }] })).rejects.toThrow(tooLarge)
    await expect(call("forge_remove", { path: file("huge.log") })).rejects.toThrow(tooLarge)
    await expect(call("forge_write", { path: file("huge.log"), content: "small\n", overwrite: true })).rejects.toThrow(tooLarge)
    expect(statSync(file("huge.log")).size).toBe(MAX_FILE_BYTES + 1)
  })

  it("puts the file back when the journal cannot record the change, so no change stands that undo cannot see", async () => {
    writeFileSync(file("kept.txt"), "old\n")
    await db.close()
    await expect(call("forge_write", { path: file("new.txt"), content: "x\n" })).rejects.toThrow(
      /^forge_write: the change to .*new\.txt could not be journaled \(.*closed.*\); the file was put back as it was\.$/,
    )
    expect(existsSync(file("new.txt"))).toBe(false)
    await expect(call("forge_patch", { path: file("kept.txt"), patches: [{ operation: "replace", search: "old", content: "new" }] })).rejects.toThrow(
      /could not be journaled/,
    )
    expect(readFileSync(file("kept.txt"), "utf8")).toBe("old\n")
    await expect(call("forge_remove", { path: file("kept.txt") })).rejects.toThrow(/could not be journaled/)
    expect(readFileSync(file("kept.txt"), "utf8")).toBe("old\n")
  })

  it("runs a rewind alone: a write called meanwhile lands before it (the rewind then stops) or after it, never lost nor out of the journal", async () => {
    userTurns.push({ id: "msg_1", at: tick })
    await call("forge_write", { path: file("a.txt"), content: "one\n" })
    await call("forge_rewind", { turn: 1 })
    const [rewound, written] = await Promise.allSettled([
      call("forge_rewind", { turn: 1, confirm: true }),
      call("forge_write", { path: file("a.txt"), content: "two\n", overwrite: true }),
    ])
    if (written.status === "rejected") throw written.reason
    expect(readFileSync(file("a.txt"), "utf8")).toBe("two\n")
    if (rewound.status === "fulfilled") {
      // The rewind first: the write then created the file anew; the journal undoes the write, then nothing stands.
      expect(rewound.value).toContain(`- ${file("a.txt")}: removed`)
      expect(written.value).toContain(`Created ${file("a.txt")}`)
      expect(await call("forge_undo", { path: file("a.txt") })).toContain("removed (that change had created it)")
      expect(existsSync(file("a.txt"))).toBe(false)
    } else {
      // The write first: the plan the user was shown moved, so the rewind wrote nothing; the journal undoes the write.
      expect(String(rewound.reason)).toMatch(/changed since the rewind was shown to the user: nothing was rewound/)
      expect(written.value).toContain(`Overwrote ${file("a.txt")}`)
      await call("forge_undo", { path: file("a.txt") })
      expect(readFileSync(file("a.txt"), "utf8")).toBe("one\n")
    }
  })

  it("names the tool and the file when a write fails on disk (a file where a folder should be)", async () => {
    writeFileSync(file("a.txt"), "a\n")
    await expect(call("forge_write", { path: file("a.txt/b.txt"), content: "x" })).rejects.toThrow(`forge_write: could not write ${file("a.txt/b.txt")}: `)
    expect(readFileSync(file("a.txt"), "utf8")).toBe("a\n")
  })

  it("names the tool and the file when a patch is refused", async () => {
    writeFileSync(file("a.txt"), "a\r\nb")
    await expect(call("forge_patch", { path: file("a.txt"), patches: [{ operation: "replace", search: "c", content: "d" }] })).rejects.toThrow(
      `forge_patch: ${file("a.txt")}: 1 of 1 patch failed, so none was applied and the text is unchanged:\n- patch 1: search "c" was not found`,
    )
    expect(readFileSync(file("a.txt"), "utf8")).toBe("a\r\nb")
  })

  it("names the file when the read's offset is past its end", async () => {
    writeFileSync(file("a.txt"), "a\nb\n")
    await expect(call("forge_read", { path: file("a.txt"), offset: 9 })).rejects.toThrow(
      `forge_read: ${file("a.txt")}: offset 9 is past the end of the file: it has 2 lines.`,
    )
  })

  it("leaves a file replaced by a folder alone in a rewind, forced or not, and restores the rest", async () => {
    userTurns.push({ id: "msg_1", at: tick })
    await call("forge_write", { path: file("a.txt"), content: "a\n" })
    await call("forge_write", { path: file("b.txt"), content: "b\n" })
    rmSync(file("a.txt"))
    mkdirSync(file("a.txt"))
    await call("forge_rewind", { turn: 1, force: true })
    const report = await call("forge_rewind", { turn: 1, force: true, confirm: true })
    expect(report).toContain(`- ${file("b.txt")}: removed`)
    expect(report).toMatch(/a\.txt: conflict: it cannot be read \(EISDIR/)
    expect(statSync(file("a.txt")).isDirectory()).toBe(true)
    expect(existsSync(file("b.txt"))).toBe(false)
  })
})

describe("opencode's own write of a file too large to journal", () => {
  it("is not journaled at all (never as a creation an undo would delete), and the write is not stopped", async () => {
    const root = tempDir("forge-file-huge-hook-")
    const work = path.join(root, "work")
    mkdirSync(work)
    const db = await openLifecycleStore(path.join(root, "db"))
    try {
      const journal = new FileJournal({ store: new SqliteJournalStore(db.connection), files: fsToolFiles, clock: { now: () => Date.now() } })
      const log = memoryLogger()
      const ctx = { directory: work, log, tree: { knownRootOf: (id: string) => id, rootOf: async (id: string) => id } } as unknown as FragmentContext
      const files = new ForgeFiles({ files: fsToolFiles, journal })
      const fragment = fileFragment(ctx, ready({ files, web: createWebFetch(), search: async () => Promise.reject(new Error("no search")) }), work)
      const beforeCall = fragment.hooks?.["tool.execute.before"] as NonNullable<Hooks["tool.execute.before"]>
      const afterCall = fragment.hooks?.["tool.execute.after"] as NonNullable<Hooks["tool.execute.after"]>
      const target = path.join(work, "big.bin")
      writeFileSync(target, "")
      truncateSync(target, MAX_FILE_BYTES + 1)
      await beforeCall({ tool: "write", sessionID: "ses_1", callID: "c1" }, { args: { filePath: target, content: "small\n" } })
      writeFileSync(target, "small\n")
      await afterCall({ tool: "write", sessionID: "ses_1", callID: "c1", args: {} }, { title: "", output: "", metadata: {} })
      await expect(files.undo(target, { session: "ses_1" })).rejects.toThrow(/forge_undo: nothing to undo/)
      expect(readFileSync(target, "utf8")).toBe("small\n")
    } finally {
      await db.close()
    }
  })
})
