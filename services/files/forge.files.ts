import { FileToolError } from "./file.errors"
import type { ToolFiles } from "./file.ports"
import { type ReadRequest, readAnswer } from "./file.read"
import { binaryKindOf, sizeText } from "./file.kind"
import { type FileJournal, JournalError, type JournalActor, type RestoreAction, type RewindReport } from "./journal"
import { applyPatches } from "./patch.apply"
import type { Patch } from "./patch.schema"

// What the forge file tools do with a file, once the adapter has resolved and confined its path: read it, write it,
// patch it, remove it, undo the last Forge change. Every change is written atomically and then journaled, one call
// per file at a time, so an undo always finds the journal and the disk agreeing.

/** A tool's answer: what the model reads and, in a few words, what happened. */
export interface FileOutcome {
  output: string
  title: string
}

// A byte-order mark stays part of the text, so a patched file keeps it.
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })
const ENCODER = new TextEncoder()

const UNDONE: Record<RestoreAction, string> = {
  restored: "restored to its content before that change",
  removed: "removed (that change had created it)",
  recreated: "recreated (that change had removed it)",
}

export interface ForgeFilesDeps {
  files: ToolFiles
  journal: FileJournal
  /** The journal's bound in bytes (each version once); unbounded when absent. */
  journalLimitBytes?: number
}

export class ForgeFiles {
  private readonly queues = new Map<string, Promise<unknown>>()

  constructor(private readonly deps: ForgeFilesDeps) {}

  async read(path: string, request: ReadRequest = {}): Promise<FileOutcome> {
    await this.requireFile("forge_read", path)
    const bytes = (await this.deps.files.read(path)) ?? new Uint8Array()
    return { output: readAnswer(path, bytes, request), title: `Read ${path}` }
  }

  write(path: string, content: string, overwrite: boolean, actor: JournalActor): Promise<FileOutcome> {
    return this.serial(path, async () => {
      const kind = await this.deps.files.kind(path)
      if (kind === "folder" || kind === "other")
        throw new FileToolError(`forge_write: ${path} is a ${kind === "folder" ? "folder" : "special file"}, not a file.`)
      const before = kind === "file" ? await this.deps.files.read(path) : undefined
      if (before !== undefined && !overwrite)
        throw new FileToolError(
          `forge_write: ${path} exists (${sizeText(before.length)}); nothing was written. Pass overwrite: true to replace it (forge_undo brings the old content back), or change it with forge_patch.`,
        )
      const after = ENCODER.encode(content)
      await this.deps.files.write(path, after)
      await this.journaled({ ...actor, tool: "forge_write", path, before, after })
      const verb = before === undefined ? "Created" : "Overwrote"
      return { output: `${verb} ${path} (${lineCount(content)} lines, ${sizeText(after.length)}).`, title: `${verb} ${path}` }
    })
  }

  patch(path: string, patches: readonly Patch[], actor: JournalActor): Promise<FileOutcome> {
    return this.serial(path, async () => {
      await this.requireFile("forge_patch", path)
      const before = (await this.deps.files.read(path)) ?? new Uint8Array()
      const result = applyPatches(textOf("forge_patch", path, before), patches)
      const after = ENCODER.encode(result.text)
      await this.deps.files.write(path, after)
      await this.journaled({ ...actor, tool: "forge_patch", path, before, after })
      const where = result.changes.map((c) => `${c.op} at line ${c.line}${c.otherLine === undefined ? "" : ` and ${c.otherLine}`}`).join(", ")
      return { output: `Patched ${path}: ${where}.`, title: `Patched ${path} (${result.changes.length})` }
    })
  }

  remove(path: string, actor: JournalActor): Promise<FileOutcome> {
    return this.serial(path, async () => {
      await this.requireFile("forge_remove", path)
      const before = await this.deps.files.read(path)
      await this.deps.files.remove(path)
      await this.journaled({ ...actor, tool: "forge_remove", path, before, after: undefined })
      return { output: `Removed ${path} (forge_undo restores it).`, title: `Removed ${path}` }
    })
  }

  undo(path: string, actor: JournalActor): Promise<FileOutcome> {
    return this.serial(path, async () => {
      try {
        const { action, reverted } = await this.deps.journal.undo(path, actor)
        return { output: `Undid ${reverted.tool} on ${path}: ${UNDONE[action]}.`, title: `Undid ${reverted.tool} on ${path}` }
      } catch (error) {
        if (error instanceof JournalError) throw new FileToolError(`forge_undo: ${error.message}`)
        throw error
      }
    })
  }

  /**
   * forge_rewind: every file the session changed since `since` (when the user turn `turn` was sent) back as it was
   * then, in one step; a file someone else changed since is a conflict left alone unless `force`.
   */
  async rewind(turn: string, since: number, force: boolean, actor: JournalActor): Promise<FileOutcome> {
    let report: RewindReport
    try {
      report = await this.deps.journal.rewind({ ...actor, since, force })
    } catch (error) {
      if (error instanceof JournalError) throw new FileToolError(`forge_rewind: ${error.message}`)
      throw error
    }
    return { output: rewindText(turn, report), title: `Rewound to ${turn}: ${report.restored.length} file(s)` }
  }

  /**
   * Journals a change another tool made (opencode's own write, edit, apply_patch), from the bytes seen before the call
   * and the file as it is after it, so forge_undo and a rewind can take it back too.
   */
  recordExternal(tool: string, path: string, before: Uint8Array | undefined, actor: JournalActor): Promise<void> {
    return this.serial(path, async () => {
      const kind = await this.deps.files.kind(path)
      const after = kind === "file" ? await this.deps.files.read(path) : undefined
      if (kind !== "file" && kind !== "missing") return
      await this.journaled({ ...actor, tool, path, before, after })
    })
  }

  /** The bytes of a file about to be changed by another tool; undefined when it is no file (not there yet). */
  async snapshot(path: string): Promise<Uint8Array | undefined> {
    return (await this.deps.files.kind(path)) === "file" ? this.deps.files.read(path) : undefined
  }

  /** Journals a change, then keeps the journal within its bound (the oldest turns go first). */
  private async journaled(input: Parameters<FileJournal["record"]>[0]): Promise<void> {
    await this.deps.journal.record(input)
    const limit = this.deps.journalLimitBytes
    // The change is on disk and journaled: a prune that fails leaves the journal large, and the next change tries again.
    if (limit !== undefined) await this.deps.journal.prune(limit).catch(() => undefined)
  }

  /** Refuses a path that is no regular file, naming what it is. */
  private async requireFile(tool: string, path: string): Promise<void> {
    const kind = await this.deps.files.kind(path)
    if (kind === "missing") throw new FileToolError(`${tool}: ${path} does not exist.`)
    if (kind === "folder") throw new FileToolError(`${tool}: ${path} is a folder, not a file.`)
    if (kind === "other") throw new FileToolError(`${tool}: ${path} is a special file (a device, a pipe or a socket), not a file.`)
  }

  /** One call per file at a time: a read-modify-write never interleaves with another on the same file. */
  private serial<T>(path: string, run: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(path) ?? Promise.resolve()
    const next = previous.catch(() => undefined).then(run)
    this.queues.set(path, next)
    const settle = () => {
      if (this.queues.get(path) === next) this.queues.delete(path)
    }
    // The caller handles the call's own failure; this branch only tidies the queue.
    next.then(settle, settle)
    return next
  }
}

/** A file's text for a patch: binary and non-UTF-8 files are refused, never patched as mangled text. */
function textOf(tool: string, path: string, bytes: Uint8Array): string {
  const kind = binaryKindOf(bytes)
  if (kind !== undefined) throw new FileToolError(`${tool}: ${path} is a binary file (${kind}, ${sizeText(bytes.length)}); only text files are patched.`)
  try {
    return UTF8.decode(bytes)
  } catch {
    throw new FileToolError(`${tool}: ${path} is not UTF-8 text, so it is not patched (the result would be mangled).`)
  }
}

function lineCount(text: string): number {
  if (text === "") return 0
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0)
}

function rewindText(turn: string, report: RewindReport): string {
  const lines = [`Rewound the session's files to ${turn}:`]
  for (const r of report.restored) lines.push(`- ${r.path}: ${r.action}${r.overrode === undefined ? "" : ` (forced over: ${r.overrode})`}`)
  for (const path of report.unchanged) lines.push(`- ${path}: already as it was`)
  for (const c of report.conflicts) lines.push(`- ${c.path}: conflict: ${c.why}`)
  if (lines.length === 1) lines.push("- nothing: the session changed no file since then")
  if (report.conflicts.length > 0)
    lines.push(
      `${report.conflicts.length} conflict(s): call forge_rewind again with force: true to restore them too (the overwritten content stays in the journal).`,
    )
  return lines.join("\n")
}
