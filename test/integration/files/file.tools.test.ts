import { randomBytes } from "node:crypto"
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { type Server, createServer } from "node:http"
import type { AddressInfo } from "node:net"
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
import { ForgeFiles } from "../../../services/files/forge.files"
import { FileJournal } from "../../../services/files/journal"
import { workerSearchScanner } from "../../../adapters/process/search.scanner"
import { runSearch } from "../../../services/files/search"
import { SEARCH_BOUNDS } from "../../../services/files/search.tally"
import { RewindPreviews } from "../../../adapters/opencode/file/rewind.previews"
import { callRaw, toolContext } from "../opencode/tool.context"
import { memoryLogger } from "../plan/plan.helpers"
import { tempDir } from "../../temp.dir"

// The forge file tools as opencode calls them (raw args, the tool context), over real files, the real journal in
// SQLite and a real web server on 127.0.0.1.

describe("forge file tools", () => {
  const scanner = workerSearchScanner({ workers: 2 })
  let work: string
  let outside: string
  let db: LifecycleStore
  let tools: Record<string, ToolDefinition>
  let asked: string[]
  let tick: number
  let userTurns: { id: string; at: number }[]

  const call = (tool: string, args: unknown) => callRaw(tools[tool], args, toolContext("ses_1", work, asked))
  /** A rewind as the model makes it: the preview, then the same call confirmed (the user allows in the dialog). */
  const rewind = async (args: Record<string, unknown>) => {
    await call("forge_rewind", args)
    return call("forge_rewind", { ...args, confirm: true })
  }
  const file = (name: string) => path.join(work, name)

  beforeEach(async () => {
    const root = tempDir("forge-file-tools-")
    work = path.join(root, "work")
    outside = path.join(root, "outside")
    mkdirSync(work)
    mkdirSync(outside)
    asked = []
    db = await openLifecycleStore(path.join(root, "db"))
    tick = 1_700_000_000_000
    userTurns = []
    const journal = new FileJournal({ store: new SqliteJournalStore(db.connection), files: fsToolFiles, clock: { now: () => ++tick } })
    const files = new ForgeFiles({ files: fsToolFiles, journal })
    tools = createFileTools({
      workspace: work,
      files: async () => files,
      web: async () => createWebFetch({ timeoutMs: 2_000 }),
      actor: async (ctx) => ({ session: ctx.sessionID, message: ctx.messageID, turn: userTurns.at(-1)?.id }),
      userTurns: async () => userTurns,
      search: (request) => runSearch(scanner, request, SEARCH_BOUNDS),
      previews: new RewindPreviews(),
    })
  })
  afterEach(async () => db.close())

  it("writes a new file with its folders, refuses to overwrite unless told, and undoes step by step back to nothing", async () => {
    const target = file("src/deep/a.txt")
    expect(await call("forge_write", { path: target, content: "one\n" })).toBe(`Created ${target} (1 lines, 4 bytes).`)
    await expect(call("forge_write", { path: target, content: "two\n" })).rejects.toThrow(/exists \(4 bytes\); nothing was written\. Pass overwrite: true/)
    await call("forge_write", { path: target, content: "two\n", overwrite: true })
    await call("forge_patch", { path: target, patches: [{ operation: "append", search: "two\n", content: "three\n" }] })
    await call("forge_remove", { path: target })
    expect(existsSync(target)).toBe(false)
    expect(await call("forge_undo", { path: target })).toContain("Undid forge_remove")
    expect(readFileSync(target, "utf8")).toBe("two\nthree\n")
    await call("forge_undo", { path: target })
    expect(readFileSync(target, "utf8")).toBe("two\n")
    await call("forge_undo", { path: target })
    expect(readFileSync(target, "utf8")).toBe("one\n")
    expect(await call("forge_undo", { path: target })).toContain("removed (that change had created it)")
    expect(existsSync(target)).toBe(false)
    await expect(call("forge_undo", { path: target })).rejects.toThrow(/^forge_undo: .*nothing/i)
  })

  it("patches exactly or not at all, keeping CRLF line endings; an ambiguous or missing text writes nothing", async () => {
    const target = file("crlf.txt")
    writeFileSync(target, "a = 1\r\nb = 1\r\n")
    await expect(call("forge_patch", { path: target, patches: [{ operation: "replace", search: "= 1", content: "= 2" }] })).rejects.toThrow(
      /occurs 2 times \(lines 1, 2\)/,
    )
    await expect(
      call("forge_patch", {
        path: target,
        patches: [
          { operation: "replace", search: "a = 1", content: "a = 2" },
          { operation: "replace", search: "c = 1", content: "c = 2" },
        ],
      }),
    ).rejects.toThrow(/1 of 2 patches failed, so none was applied/)
    expect(readFileSync(target, "utf8")).toBe("a = 1\r\nb = 1\r\n")
    await call("forge_patch", { path: target, patches: [{ operation: "replace", search: "b = 1\n", content: "b = 2\nc = 3\n" }] })
    expect(readFileSync(target, "utf8")).toBe("a = 1\r\nb = 2\r\nc = 3\r\n")
  })

  it("patches ASCII and UTF-8 files byte for byte: a byte-order mark stays, new text is UTF-8, a Latin-1 file is refused", async () => {
    const ascii = file("ascii.txt")
    writeFileSync(ascii, "name = 'a'\n")
    await call("forge_patch", { path: ascii, patches: [{ operation: "replace", search: "'a'", content: "'é😀'" }] })
    expect(readFileSync(ascii).equals(Buffer.from("name = 'é😀'\n"))).toBe(true)
    const bom = file("bom.txt")
    writeFileSync(bom, "\ufeffnamé = 1\nb = 1\n")
    await call("forge_patch", { path: bom, patches: [{ operation: "replace", search: "b = 1", content: "b = 2" }] })
    expect(readFileSync(bom).equals(Buffer.from("\ufeffnamé = 1\nb = 2\n"))).toBe(true)
    await call("forge_patch", { path: bom, patches: [{ operation: "swap", search: "namé = 1", with: "b = 2" }] })
    expect(readFileSync(bom).equals(Buffer.from("\ufeffb = 2\nnamé = 1\n"))).toBe(true)
    const latin1 = file("latin1.txt")
    writeFileSync(latin1, Buffer.from("namé = 1\n", "latin1"))
    await expect(call("forge_patch", { path: latin1, patches: [{ operation: "replace", search: "1", content: "2" }] })).rejects.toThrow(
      /is not UTF-8 text, so it is not patched/,
    )
  })

  it("reads text windowed and refuses binary files, folders and missing files by name", async () => {
    writeFileSync(file("t.txt"), "x\ny\n")
    writeFileSync(file("b.bin"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1]))
    expect(await call("forge_read", { path: file("t.txt") })).toBe("1: x\n2: y")
    await expect(call("forge_read", { path: file("b.bin") })).rejects.toThrow(/binary file \(ELF executable, 6 bytes\)/)
    await expect(call("forge_read", { path: work })).rejects.toThrow(/is a folder, not a file/)
    await expect(call("forge_remove", { path: file("nope.txt") })).rejects.toThrow(/nope\.txt does not exist/)
    await expect(call("forge_patch", { path: file("b.bin"), patches: [{ operation: "replace", search: "E", content: "F" }] })).rejects.toThrow(
      /binary file .* only text files are patched/,
    )
  })

  it("takes absolute paths only, and asks the external_directory permission for one outside the workspace, links included", async () => {
    await expect(call("forge_read", { path: "src/a.txt" })).rejects.toThrow(
      `forge_read: path "src/a.txt" is relative: give the absolute path (e.g. ${file("src/a.txt")})`,
    )
    writeFileSync(path.join(outside, "o.txt"), "outside\n")
    symlinkSync(outside, file("link"))
    expect(await call("forge_read", { path: file("link/o.txt") })).toBe("1: outside")
    expect(await call("forge_read", { path: `${work}/../outside/o.txt` })).toBe("1: outside")
    expect(asked).toEqual(["external_directory", "external_directory"])
    const denied = toolContext("ses_1", work)
    denied.ask = async () => {
      throw new Error("rejected")
    }
    await expect(callRaw(tools.forge_write, { path: path.join(outside, "new.txt"), content: "x" }, denied)).rejects.toThrow(
      /is outside this session's workspace .* was not allowed \(the external_directory permission\)/,
    )
    expect(existsSync(path.join(outside, "new.txt"))).toBe(false)
  })

  it("rewinds every file the session changed since a user turn, leaving a file changed by someone else alone unless forced", async () => {
    writeFileSync(file("notes.txt"), "v1\n")
    userTurns.push({ id: "msg_1", at: tick })
    await call("forge_write", { path: file("a.txt"), content: "a\n" })
    await call("forge_patch", { path: file("notes.txt"), patches: [{ operation: "replace", search: "v1", content: "v2" }] })
    userTurns.push({ id: "msg_2", at: ++tick })
    await call("forge_write", { path: file("b.txt"), content: "b\n" })
    await call("forge_remove", { path: file("notes.txt") })
    expect(await rewind({ turn: 2 })).toBe(`Rewound the session's files to turn 2 (msg_2):\n- ${file("b.txt")}: removed\n- ${file("notes.txt")}: recreated`)
    expect(readFileSync(file("notes.txt"), "utf8")).toBe("v2\n")
    expect(existsSync(file("b.txt"))).toBe(false)
    // Someone else changes a.txt: rewinding to turn 1 restores notes.txt and leaves a.txt as a conflict.
    writeFileSync(file("a.txt"), "theirs\n")
    const rewound = await rewind({ message: "msg_1" })
    expect(rewound).toContain(`- ${file("notes.txt")}: restored`)
    expect(rewound).toContain(`- ${file("a.txt")}: conflict: its content is not what Forge left there`)
    expect(rewound).toContain("1 conflict(s): call forge_rewind again with force: true")
    expect(readFileSync(file("a.txt"), "utf8")).toBe("theirs\n")
    expect(readFileSync(file("notes.txt"), "utf8")).toBe("v1\n")
    expect(await rewind({ turn: 1, force: true })).toContain(`- ${file("a.txt")}: removed (forced over:`)
    expect(existsSync(file("a.txt"))).toBe(false)
    await expect(call("forge_rewind", { turn: 3 })).rejects.toThrow("forge_rewind: the session has 2 user turn(s); turn 3 is not one of them.")
    await expect(call("forge_rewind", { turn: 1, message: "msg_1" })).rejects.toThrow("give either turn")
  })

  it("previews a rewind, changing nothing; the user decides in its dialog, and a file moved in between stops it", async () => {
    writeFileSync(file("notes.txt"), "v1\n")
    userTurns.push({ id: "msg_1", at: tick })
    await call("forge_write", { path: file("a.txt"), content: "a\n" })
    await call("forge_patch", { path: file("notes.txt"), patches: [{ operation: "replace", search: "v1", content: "v2" }] })
    // Without a preview there is nothing the user was shown: refused, nothing asked.
    await expect(call("forge_rewind", { turn: 1, confirm: true })).rejects.toThrow(/^forge_rewind: confirm carries out a rewind the user was shown/)
    const preview = await call("forge_rewind", { turn: 1 })
    expect(preview).toBe(
      [
        "Rewinding the session's files to turn 1 (msg_1) would:",
        `- ${file("a.txt")}: removed (2 bytes now, removed)`,
        `- ${file("notes.txt")}: restored (3 bytes now, 3 bytes after)`,
        "Nothing has changed yet. Tell the user, then call forge_rewind again with the same arguments and confirm: true: the user is asked in a dialog that lists these files.",
      ].join("\n"),
    )
    expect(readFileSync(file("notes.txt"), "utf8")).toBe("v2\n")
    expect(asked).toEqual([])

    // The user says no: nothing changes, and the preview is spent.
    const denying = { ...toolContext("ses_1", work, asked), ask: async () => Promise.reject(new Error("rejected")) }
    await expect(callRaw(tools.forge_rewind, { turn: 1, confirm: true }, denying)).rejects.toThrow(
      "forge_rewind: the user did not allow the rewind to turn 1 (msg_1); nothing was changed.",
    )
    expect(existsSync(file("a.txt"))).toBe(true)
    await expect(call("forge_rewind", { turn: 1, confirm: true })).rejects.toThrow(/confirm carries out a rewind the user was shown/)

    // Somebody changes a.txt after the preview: the allowed rewind writes nothing and answers the new preview.
    await call("forge_rewind", { turn: 1 })
    writeFileSync(file("a.txt"), "theirs\n")
    await expect(call("forge_rewind", { turn: 1, confirm: true })).rejects.toThrow(
      /^forge_rewind: the session's files changed since the rewind was shown to the user: nothing was rewound\. What it would do now:\n[\s\S]*\n- .*a\.txt: conflict: its content is not what Forge left there/,
    )
    expect(readFileSync(file("notes.txt"), "utf8")).toBe("v2\n")
    // That new preview is what the next confirmation carries out, after its own dialog.
    asked.length = 0
    expect(await call("forge_rewind", { turn: 1, confirm: true })).toContain(`- ${file("notes.txt")}: restored`)
    expect(asked).toEqual(["forge_rewind"])
    expect(readFileSync(file("notes.txt"), "utf8")).toBe("v1\n")
    expect(readFileSync(file("a.txt"), "utf8")).toBe("theirs\n")
  })

  it("searches the workspace, .gitignore honoured; a regex that would backtrack without end is decided on every line", async () => {
    writeFileSync(file(".gitignore"), "ignored.txt\n")
    writeFileSync(file("a.ts"), "const useState = 1\nother\n")
    writeFileSync(file("ignored.txt"), "useState\n")
    const found = await call("forge_search", { path: work, regex: "useState" })
    expect(found).toContain("a.ts\n1: const useState = 1")
    expect(found).not.toContain("ignored.txt")
    writeFileSync(file("b.txt"), `${"a".repeat(40)}!\n${"a".repeat(40)}\n`)
    const decided = await call("forge_search", { path: work, regex: "(a+)+$", file_pattern: "*.txt" })
    expect(decided).toMatch(/^1 matching line in 1 file for \/\(a\+\)\+\$\/ under .*; 1 file searched\.\n\nb\.txt\n2: a{40}$/)
    await expect(call("forge_search", { path: work, regex: "(" })).rejects.toThrow(/is not a valid regular expression/)
  })

  describe("forge_fetch", () => {
    let server: Server
    let base: string
    beforeEach(async () => {
      server = createServer((req, res) => {
        if (req.url === "/page") res.writeHead(200, { "content-type": "text/html" }).end("<html><title>T</title><body><h1>Hello</h1><p>World</p></body></html>")
        else res.writeHead(404, { "content-type": "text/plain" }).end("no such page")
      })
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    })
    afterEach(async () => new Promise<void>((resolve) => server.close(() => resolve())))

    it("answers HTML as markdown, pages with start_index, and reports an HTTP error plainly", async () => {
      const page = await call("forge_fetch", { url: `${base}/page` })
      expect(page).toContain("# Hello")
      expect(page).toContain("World")
      const first = await call("forge_fetch", { url: `${base}/page`, max_length: 5 })
      expect(first).toMatch(/call forge_fetch again with start_index=5/)
      await expect(call("forge_fetch", { url: `${base}/missing` })).rejects.toThrow(/404/)
      await expect(call("forge_fetch", { url: "file:///etc/passwd" })).rejects.toThrow(/file:/)
    })
  })
})

describe("opencode's own file tools in the journal", () => {
  it("journals write and apply_patch through the fragment's hooks, so forge_undo and forge_rewind take them back", async () => {
    const root = tempDir("forge-file-hooks-")
    const work = path.join(root, "work")
    mkdirSync(work)
    const db = await openLifecycleStore(path.join(root, "db"))
    try {
      const journal = new FileJournal({ store: new SqliteJournalStore(db.connection), files: fsToolFiles, clock: { now: () => Date.now() } })
      const ctx = {
        directory: work,
        log: memoryLogger(),
        tree: { knownRootOf: (id: string) => id, rootOf: async (id: string) => id },
      } as unknown as FragmentContext
      const fragment = fileFragment(
        ctx,
        ready({ files: new ForgeFiles({ files: fsToolFiles, journal }), web: createWebFetch(), search: async () => never() }),
        work,
      )
      const beforeCall = fragment.hooks?.["tool.execute.before"] as NonNullable<Hooks["tool.execute.before"]>
      const afterCall = fragment.hooks?.["tool.execute.after"] as NonNullable<Hooks["tool.execute.after"]>
      const target = path.join(work, "a.txt")
      writeFileSync(target, "mine\n")
      // opencode's write: the hook reads the file before the call, the tool writes, the after hook journals.
      await beforeCall({ tool: "write", sessionID: "ses_1", callID: "c1" }, { args: { filePath: target, content: "theirs\n" } })
      writeFileSync(target, "theirs\n")
      await afterCall({ tool: "write", sessionID: "ses_1", callID: "c1", args: {} }, { title: "", output: "", metadata: {} })
      // apply_patch names workspace-relative files in its headers; one it adds did not exist before.
      const patchText = "*** Begin Patch\n*** Add File: src/new.txt\n+hello\n*** End Patch"
      await beforeCall({ tool: "apply_patch", sessionID: "ses_1", callID: "c2" }, { args: { patchText } })
      mkdirSync(path.join(work, "src"))
      writeFileSync(path.join(work, "src/new.txt"), "hello\n")
      await afterCall({ tool: "apply_patch", sessionID: "ses_1", callID: "c2", args: {} }, { title: "", output: "", metadata: {} })
      const undo = (file: string) => callRaw(fragment.tools?.forge_undo, { path: file }, toolContext("ses_1", work))
      expect(await undo(target)).toContain("Undid write")
      expect(readFileSync(target, "utf8")).toBe("mine\n")
      expect(await undo(path.join(work, "src/new.txt"))).toContain("Undid apply_patch")
      expect(existsSync(path.join(work, "src/new.txt"))).toBe(false)
      // apply_patch deletes a +x script: undone, it comes back +x.
      const script = path.join(work, "run.sh")
      writeFileSync(script, "#!/bin/sh\n")
      chmodSync(script, 0o755)
      const deletion = "*** Begin Patch\n*** Delete File: run.sh\n*** End Patch"
      await beforeCall({ tool: "apply_patch", sessionID: "ses_1", callID: "c3" }, { args: { patchText: deletion } })
      rmSync(script)
      await afterCall({ tool: "apply_patch", sessionID: "ses_1", callID: "c3", args: {} }, { title: "", output: "", metadata: {} })
      expect(await undo(script)).toContain("Undid apply_patch")
      expect(statSync(script).mode & 0o777).toBe(0o755)
      // A call the hooks never saw begin is no one's to journal.
      await afterCall({ tool: "edit", sessionID: "ses_1", callID: "unknown", args: {} }, { title: "", output: "", metadata: {} })
    } finally {
      await db.close()
    }
  })
})

describe("the journal's bound", () => {
  it("drops the oldest turns once the journal holds more than its bound, never the newest", async () => {
    const root = tempDir("forge-file-bound-")
    const db = await openLifecycleStore(path.join(root, "db"))
    try {
      const store = new SqliteJournalStore(db.connection)
      const journal = new FileJournal({ store, files: fsToolFiles, clock: { now: () => Date.now() } })
      const files = new ForgeFiles({ files: fsToolFiles, journal, journalLimitBytes: 1_000 })
      // Random text (deflate saves a quarter of base64, a delta nothing): about 460 bytes stored per version.
      const versions = new Map<string, string>()
      const big = (c: string) => versions.get(c) ?? (versions.set(c, randomBytes(450).toString("base64")).get(c) as string)
      const target = path.join(root, "a.txt")
      await files.write(target, big("a"), false, { session: "s", turn: "t1" })
      await files.write(target, big("b"), true, { session: "s", turn: "t2" })
      await files.write(target, big("c"), true, { session: "s", turn: "t3" })
      expect(await store.blobBytes()).toBeLessThanOrEqual(1_000)
      expect((await store.turns()).map((t) => t.turn)).toEqual(["t3"])
      // What is left can still be undone; what was pruned cannot.
      await files.undo(target, { session: "s" })
      expect(readFileSync(target, "utf8")).toBe(big("b"))
      await expect(files.undo(target, { session: "s" })).rejects.toThrow(/forge_undo: /)
      // A rewind to the first turn cannot reach the changes pruned since, and says so.
      const rewound = await files.rewind("turn 1 (t1)", 0, false, { session: "s", turn: "t4" })
      expect(rewound.output).toMatch(
        /\nNot all of it: the journal had dropped this session's changes up to \S+ to stay within its size bound \(files\.journalMaxMB\), so those changes \(and files only they touched\) were not rewound\.$/,
      )
    } finally {
      await db.close()
    }
  })
})

function never(): never {
  throw new Error("this test does not search")
}
