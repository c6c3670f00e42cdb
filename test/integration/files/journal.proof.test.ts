import { execFileSync } from "node:child_process"
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, renameSync, statSync, symlinkSync, writeFileSync } from "node:fs"
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
import { RewindPreviews } from "../../../adapters/opencode/file/rewind.previews"
import { callRaw, toolContext } from "../opencode/tool.context"
import { memoryLogger } from "../plan/plan.helpers"
import { tempDir } from "../../temp.dir"

// Undo and rewind restore a file only when the journal proves it held what Forge left there at every step since: real
// files, the real journal in SQLite, the real tools as opencode calls them, and real shell commands between them
// (journaled through the file fragment's hooks, as forge_shell is inside opencode).

describe("the journal's proof before undo and rewind", () => {
  let root: string
  let work: string
  let db: LifecycleStore
  let tools: Record<string, ToolDefinition>
  let hooks: Hooks
  let tick: number
  let files: ForgeFiles
  const turns = new Map<string, { id: string; at: number }[]>()

  const file = (name: string) => path.join(work, name)
  const call = (tool: string, args: unknown, session = "ses_1") => callRaw(tools[tool], args, toolContext(session, work))
  /** A rewind as the model makes it: the preview, then the same call confirmed (the user allows in the dialog). */
  const rewind = async (args: Record<string, unknown>) => {
    await call("forge_rewind", args)
    return call("forge_rewind", { ...args, confirm: true })
  }
  const turn = (id: string, session = "ses_1") => turns.set(session, [...(turns.get(session) ?? []), { id, at: ++tick }])
  let calls = 0
  /** A shell command as forge_shell runs it inside opencode: the fragment's hooks around it. */
  const shell = async (command: string, session = "ses_1") => {
    const callID = `call_${++calls}`
    await hooks["tool.execute.before"]?.({ tool: "forge_shell", sessionID: session, callID }, { args: { command } })
    execFileSync("/bin/sh", ["-c", command], { cwd: work })
    await hooks["tool.execute.after"]?.({ tool: "forge_shell", sessionID: session, callID, args: { command } }, { title: "", output: "", metadata: {} })
  }

  beforeEach(async () => {
    root = tempDir("forge-journal-proof-")
    work = path.join(root, "work")
    mkdirSync(work)
    db = await openLifecycleStore(work)
    tick = 1_700_000_000_000
    turns.clear()
    const journal = new FileJournal({ store: new SqliteJournalStore(db.connection), files: fsToolFiles, clock: { now: () => ++tick } })
    files = new ForgeFiles({ files: fsToolFiles, journal })
    tools = createFileTools({
      workspace: work,
      files: async () => files,
      web: async () => createWebFetch(),
      actor: async (ctx) => ({ session: ctx.sessionID, message: ctx.messageID, turn: turns.get(ctx.sessionID)?.at(-1)?.id }),
      userTurns: async (session) => turns.get(session) ?? [],
      previews: new RewindPreviews(),
      search: async () => {
        throw new Error("this test does not search")
      },
    })
    const ctx = {
      directory: work,
      log: memoryLogger(),
      tree: { knownRootOf: (id: string) => id, rootOf: async (id: string) => id },
      // The journal holds entries: shell calls are watched.
      isWorkspaceUnused: () => false,
    } as unknown as FragmentContext
    hooks = fileFragment(ctx, ready({ files, web: createWebFetch(), search: async () => ({}) as never }), work).hooks ?? {}
  })
  afterEach(async () => db.close())

  it("leaves a file the user changed by hand between two Forge turns as a conflict, naming the gap", async () => {
    turn("msg_1")
    await call("forge_write", { path: file("a.txt"), content: "forge\n" })
    writeFileSync(file("a.txt"), "hand\n")
    turn("msg_2")
    await call("forge_patch", { path: file("a.txt"), patches: [{ operation: "append", search: "hand\n", content: "more\n" }] })
    const rewound = await rewind({ turn: 1 })
    expect(rewound).toContain(`- ${file("a.txt")}: conflict: it was changed outside Forge between forge_write at`)
    expect(readFileSync(file("a.txt"), "utf8")).toBe("hand\nmore\n")
  })

  it("leaves a file forge_shell changed between a forge_write and a forge_patch of the same turn as a conflict", async () => {
    turn("msg_1")
    await call("forge_write", { path: file("a.txt"), content: "one\n" })
    await shell("printf 'shell\\n' > a.txt")
    await call("forge_patch", { path: file("a.txt"), patches: [{ operation: "append", search: "shell\n", content: "patched\n" }] })
    const rewound = await rewind({ turn: 1 })
    expect(rewound).toContain(`- ${file("a.txt")}: conflict: forge_shell changed it at`)
    expect(readFileSync(file("a.txt"), "utf8")).toBe("shell\npatched\n")
    // forge_undo takes back the patch, then stops at the shell's change: that is not Forge's to take back.
    await call("forge_undo", { path: file("a.txt") })
    expect(readFileSync(file("a.txt"), "utf8")).toBe("shell\n")
    await expect(call("forge_undo", { path: file("a.txt") })).rejects.toThrow(/forge_shell changed it at .* Forge does not undo it/)
    expect(readFileSync(file("a.txt"), "utf8")).toBe("shell\n")
  })

  it("sees a shell's change when the workspace is reached through a symbolic link (the journal keeps real paths)", async () => {
    const linked = path.join(root, "linked")
    symlinkSync(work, linked)
    const ctx = {
      directory: linked,
      log: memoryLogger(),
      tree: { knownRootOf: (id: string) => id, rootOf: async (id: string) => id },
      // The journal holds entries: shell calls are watched.
      isWorkspaceUnused: () => false,
    } as unknown as FragmentContext
    hooks = fileFragment(ctx, ready({ files, web: createWebFetch(), search: async () => ({}) as never }), linked).hooks ?? {}
    turn("msg_1")
    await call("forge_write", { path: file("a.txt"), content: "one\n" })
    await shell("printf 'shell\\n' > a.txt")
    const rewound = await rewind({ turn: 1 })
    expect(rewound).toContain(`- ${file("a.txt")}: conflict: forge_shell changed it at`)
  })

  it("leaves a file another session patched in between as a conflict of this session's rewind", async () => {
    turn("msg_1")
    await call("forge_write", { path: file("a.txt"), content: "one\n" })
    await call("forge_patch", { path: file("a.txt"), patches: [{ operation: "replace", search: "one", content: "two" }] }, "ses_2")
    await call("forge_patch", { path: file("a.txt"), patches: [{ operation: "replace", search: "two", content: "three" }] })
    const rewound = await rewind({ turn: 1 })
    expect(rewound).toContain(`- ${file("a.txt")}: conflict: another session (ses_2) changed it with forge_patch at`)
    expect(readFileSync(file("a.txt"), "utf8")).toBe("three\n")
  })

  it("undoes a rewind: forge_undo right after forge_rewind restores what the rewind changed, then walks on", async () => {
    turn("msg_1")
    await call("forge_write", { path: file("a.txt"), content: "1\n" })
    turn("msg_2")
    await call("forge_write", { path: file("a.txt"), content: "2\n", overwrite: true })
    await call("forge_write", { path: file("b.txt"), content: "b\n" })
    await rewind({ turn: 2 })
    expect(readFileSync(file("a.txt"), "utf8")).toBe("1\n")
    expect(existsSync(file("b.txt"))).toBe(false)
    expect(await call("forge_undo", { path: file("a.txt") })).toContain("Undid forge_rewind")
    expect(readFileSync(file("a.txt"), "utf8")).toBe("2\n")
    await call("forge_undo", { path: file("b.txt") })
    expect(readFileSync(file("b.txt"), "utf8")).toBe("b\n")
    // The rewind is taken back, so the changes it reverted stand again: the next undo walks back from them.
    await call("forge_undo", { path: file("a.txt") })
    expect(readFileSync(file("a.txt"), "utf8")).toBe("1\n")
  })

  it("keeps what a forced rewind replaced: the answer lists it, and forge_undo brings the user's version back", async () => {
    turn("msg_1")
    await call("forge_write", { path: file("a.txt"), content: "mine\n" })
    writeFileSync(file("a.txt"), "user\n")
    const rewound = await rewind({ turn: 1, force: true })
    expect(rewound).toContain(`Replaced 1 file(s) that held changes Forge did not make (forge_undo on each brings them back):\n- ${file("a.txt")}`)
    expect(existsSync(file("a.txt"))).toBe(false)
    await call("forge_undo", { path: file("a.txt") })
    expect(readFileSync(file("a.txt"), "utf8")).toBe("user\n")
  })

  it("never deletes outside the workspace through a folder swapped for a symbolic link", async () => {
    turn("msg_1")
    await call("forge_write", { path: file("dir/a.txt"), content: "a\n" })
    const outside = path.join(root, "outside")
    mkdirSync(outside)
    writeFileSync(path.join(outside, "a.txt"), "a\n")
    renameSync(file("dir"), path.join(root, "moved"))
    symlinkSync(outside, file("dir"))
    const rewound = await rewind({ turn: 1, force: true })
    expect(rewound).toMatch(new RegExp(`- ${file("dir/a.txt")}: conflict: .*now leads to ${path.join(outside, "a.txt")}`))
    expect(readFileSync(path.join(outside, "a.txt"), "utf8")).toBe("a\n")
    await expect(files.undo(file("dir/a.txt"), { session: "ses_1" })).rejects.toThrow(/now leads to/)
    expect(readFileSync(path.join(outside, "a.txt"), "utf8")).toBe("a\n")
  })

  it("brings a +x script back +x after remove and undo, and after a rewind", async () => {
    writeFileSync(file("run.sh"), "#!/bin/sh\necho hi\n")
    chmodSync(file("run.sh"), 0o755)
    await call("forge_remove", { path: file("run.sh") })
    await call("forge_undo", { path: file("run.sh") })
    expect(statSync(file("run.sh")).mode & 0o777).toBe(0o755)
    turn("msg_1")
    await call("forge_remove", { path: file("run.sh") })
    await rewind({ turn: 1 })
    expect(statSync(file("run.sh")).mode & 0o777).toBe(0o755)
  })

  it("brings a symbolic link back as the same link after a forced rewind and an undo", async () => {
    writeFileSync(file("other.txt"), "target\n")
    turn("msg_1")
    await call("forge_write", { path: file("f"), content: "x\n" })
    await shell("rm f && ln -s other.txt f")
    await rewind({ turn: 1, force: true })
    expect(existsSync(file("f"))).toBe(false)
    await call("forge_undo", { path: file("f") })
    expect(lstatSync(file("f")).isSymbolicLink()).toBe(true)
    expect(readlinkSync(file("f"))).toBe("other.txt")
    expect(readFileSync(file("other.txt"), "utf8")).toBe("target\n")
  })

  it("refuses to write, patch or remove Forge's own store; loop worktrees stay writable", async () => {
    const store = file(".opencode/forge/forge.db")
    const size = statSync(store).size
    await expect(call("forge_write", { path: store, content: "x", overwrite: true })).rejects.toThrow(
      `forge_write: ${store} is Forge's own store (its database, which holds the undo journal); Forge's file tools never change it. Nothing was written.`,
    )
    await expect(call("forge_remove", { path: store })).rejects.toThrow(/is Forge's own store/)
    await expect(call("forge_write", { path: `${store}-wal`, content: "x" })).rejects.toThrow(/is Forge's own store/)
    await expect(call("forge_patch", { path: store, patches: [{ operation: "append", search: "S", content: "x" }] })).rejects.toThrow(/is Forge's own store/)
    symlinkSync(store, file("db.link"))
    await expect(call("forge_write", { path: file("db.link"), content: "x", overwrite: true })).rejects.toThrow(/is Forge's own store/)
    expect(statSync(store).size).toBe(size)
    const inLoop = file(".opencode/forge/worktrees/loop_1/src/a.txt")
    expect(await call("forge_write", { path: inLoop, content: "loop\n" })).toContain("Created")
  })

  it("checks every path in Forge's words: a NUL byte, a path too long, text that is no valid Unicode", async () => {
    await expect(call("forge_write", { path: `${work}/a\u0000b`, content: "x" })).rejects.toThrow(
      /^forge_write: the path .* holds a NUL byte \(at character \d+\); a path cannot hold one\. Nothing was changed\.$/,
    )
    await expect(call("forge_read", { path: `${work}/${"a".repeat(5_000)}` })).rejects.toThrow(
      /^forge_read: the path is 5\d{3} bytes long, over the limit of 4096/,
    )
    await expect(call("forge_remove", { path: `${work}/\ud800.txt` })).rejects.toThrow(/^forge_remove: the path .* is not valid Unicode/)
    await expect(call("forge_undo", { path: `${work}/a\u0000` })).rejects.toThrow(/^forge_undo: the path .* holds a NUL byte/)
  })
})
