import { isAscii, isUtf8 } from "node:buffer"
import { FileToolError } from "./file.errors"
import type { PathStat, ToolFiles } from "./file.ports"
import { type ReadRequest, readAnswer } from "./file.read"
import { MAX_FILE_BYTES, binaryKindOf, sizeText } from "./file.kind"
import type { FileJournal } from "./journal"
import { JournalError, RewindMovedError } from "./journal.errors"
import type { JournalActor, RecordInput, RewindInput, RewindReport } from "./journal.types"
import { rewindText } from "./rewind.text"
import type { RestoreAction } from "./journal.content"
import type { FileState } from "./journal.ports"
import { PatchError, type PatchResult, applyPatches } from "./patch.apply"
import type { Patch } from "./patch.schema"

// What the forge file tools do with a file, once the adapter has resolved and confined its path: read it, write it,
// patch it, remove it, undo the last Forge change. Every change is written atomically and journaled meanwhile (the
// entry taken back if the write fails), one call per file at a time, so an undo always finds the journal and the disk
// agreeing.

/** A tool's answer: what the model reads and, in a few words, what happened. */
export interface FileOutcome {
  output: string
  title: string
}

const ENCODER = new TextEncoder()

const UNDONE: Record<RestoreAction, string> = {
  restored: "restored to its content before that change",
  removed: "removed (that change had created it)",
  recreated: "recreated (that change had removed it)",
}

/** Changes after which the journal's size is asked again, however far under its bound it was. */
const PRUNE_RECHECK = 64

/**
 * Files the journal knows that a shell command's watch covers (the most recently changed first): about 30-100 ms of
 * lstat calls before and after a command at the full count here. A change to a file past it is still caught by the
 * proof (its content is not what the journal's newest entry says), only not named as the shell's.
 */
const WATCHED_FILES = 1_000

/** Files fingerprinted at once (lstat calls in flight together). */
const SIGNATURE_BATCH = 64

/** What a shell command's watch saw before it ran: each known file's fingerprint (ToolFiles.signature). */
export interface ShellWatch {
  marks: Map<string, string>
}

/** A file's bytes and mode (the tools' paths are real: no link) as a record's `before`. */
function modes(before: Uint8Array | undefined, mode: number): Pick<RecordInput, "before" | "beforeMode" | "afterMode"> {
  if (before === undefined) return { before }
  // A tool's write keeps the file's permission bits, so the mode after is the mode before.
  return { before, beforeMode: mode, afterMode: mode }
}

export interface ForgeFilesDeps {
  files: ToolFiles
  journal: FileJournal
  /** The journal's bound in bytes (each version once); unbounded when absent. */
  journalLimitBytes?: number
}

export class ForgeFiles {
  private readonly queues = new Map<string, Promise<unknown>>()
  /** The journal's size when last asked, plus the bytes journaled since, and how many changes ago it was asked. */
  private journalSize: { bytes: number; changes: number } | undefined
  /** The last rewind: every call on a file that came after it waits for it (see `exclusive`). */
  private barrier: Promise<unknown> = Promise.resolve()

  constructor(private readonly deps: ForgeFilesDeps) {}

  async read(path: string, request: ReadRequest = {}): Promise<FileOutcome> {
    await this.requireFile("forge_read", path)
    const bytes = (await this.deps.files.read(path)) ?? new Uint8Array()
    return { output: readAnswer(path, bytes, request), title: `Read ${path}` }
  }

  write(path: string, content: string, overwrite: boolean, actor: JournalActor): Promise<FileOutcome> {
    return this.serial(path, async () => {
      const { kind, size, mode } = await this.deps.files.stat(path)
      if (kind === "folder" || kind === "other")
        throw new FileToolError(`forge_write: ${path} is a ${kind === "folder" ? "folder" : "special file"}, not a file.`)
      if (kind === "file" && !overwrite)
        throw new FileToolError(
          `forge_write: ${path} exists (${sizeText(size)}); nothing was written. Pass overwrite: true to replace it (forge_undo brings the old content back), or change it with forge_patch.`,
        )
      if (kind === "file") tooLarge("forge_write", path, size)
      const before = kind === "file" ? await this.deps.files.read(path) : undefined
      const after = ENCODER.encode(content)
      await this.commit({ ...actor, tool: "forge_write", path, ...modes(before, mode), after })
      const verb = before === undefined ? "Created" : "Overwrote"
      return { output: `${verb} ${path} (${lineCount(content)} lines, ${sizeText(after.length)}).`, title: `${verb} ${path}` }
    })
  }

  patch(path: string, patches: readonly Patch[], actor: JournalActor): Promise<FileOutcome> {
    return this.serial(path, async () => {
      const { mode } = await this.requireFile("forge_patch", path)
      const before = (await this.deps.files.read(path)) ?? new Uint8Array()
      const text = textOf("forge_patch", path, before)
      const result = patched(path, text.text, patches, text.ascii ? before : undefined)
      const after = result.bytes ?? Buffer.from(result.text, "utf8")
      await this.commit({ ...actor, tool: "forge_patch", path, ...modes(before, mode), after })
      const where = result.changes.map((c) => `${c.op} at line ${c.line}${c.otherLine === undefined ? "" : ` and ${c.otherLine}`}`).join(", ")
      return { output: `Patched ${path}: ${where}.`, title: `Patched ${path} (${result.changes.length})` }
    })
  }

  remove(path: string, actor: JournalActor): Promise<FileOutcome> {
    return this.serial(path, async () => {
      const { mode } = await this.requireFile("forge_remove", path)
      const before = await this.deps.files.read(path)
      await this.commit({ ...actor, tool: "forge_remove", path, before, beforeMode: mode, after: undefined })
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
   * forge_rewind's preview: what a rewind of every file the session changed since `since` (when the user turn `turn`
   * was sent) would do, each file with its size before and after; nothing is written. Its `fingerprint` goes to
   * `rewind` once the user allowed it.
   */
  async previewRewind(since: number, force: boolean, actor: JournalActor): Promise<RewindReport> {
    return this.journalRewind({ ...actor, since, force, preview: true })
  }

  /**
   * forge_rewind: every file the session changed since `since` back as it was then, in one step; a file someone else
   * changed since is a conflict left alone unless `force`. With `expect` (the preview's fingerprint the user allowed)
   * it writes only while its plan is still that one, else a RewindMovedError carries the new plan.
   */
  async rewind(turn: string, since: number, force: boolean, actor: JournalActor, expect?: string): Promise<FileOutcome> {
    const report = await this.journalRewind({ ...actor, since, force, expect })
    return { output: rewindText(turn, report), title: `Rewound to ${turn}: ${report.restored.length} file(s)` }
  }

  private async journalRewind(input: RewindInput): Promise<RewindReport> {
    try {
      return await this.exclusive(() => this.deps.journal.rewind(input))
    } catch (error) {
      if (error instanceof JournalError && !(error instanceof RewindMovedError)) throw new FileToolError(`forge_rewind: ${error.message}`)
      throw error
    }
  }

  /**
   * Journals a change another tool made (opencode's own write, edit, apply_patch), from the bytes seen before the call
   * and the file as it is after it, so forge_undo and a rewind can take it back too.
   */
  recordExternal(tool: string, path: string, before: FileState | undefined, actor: JournalActor): Promise<void> {
    return this.serial(path, async () => {
      const { kind, size } = await this.deps.files.stat(path)
      if (kind !== "file" && kind !== "missing") return
      // Throws past the bound: left unjournaled, an undo then finds the file changed since and refuses.
      if (kind === "file") tooLarge(tool, path, size)
      const after = kind === "file" ? await this.deps.files.state(path) : undefined
      await this.journaled({ ...actor, tool, path, before: before?.bytes, beforeMode: before?.mode, after: after?.bytes, afterMode: after?.mode })
    })
  }

  /**
   * Before a shell command runs: the fingerprint of every file under `folder` the journal knows (at most WATCHED_FILES,
   * the most recently changed), so that afterwards only the files whose fingerprint moved are read.
   */
  async watch(folder: string): Promise<ShellWatch> {
    return { marks: await this.signatures(await this.deps.journal.paths(folder, WATCHED_FILES)) }
  }

  /**
   * After a shell command: each watched file whose fingerprint moved and that no longer holds what the journal last
   * knew is journaled as a change `tool` made (journal.observe), so no undo or rewind overwrites it unseen. Returns the
   * files journaled. A file over the size bound is not read: the proof then finds its content changed anyway.
   */
  async observe(watch: ShellWatch, tool: string, actor: JournalActor): Promise<string[]> {
    const seen: string[] = []
    const now = await this.signatures([...watch.marks.keys()])
    for (const [path, mark] of watch.marks) {
      if (now.get(path) === mark) continue
      await this.serial(path, async () => {
        const { kind, size } = await this.deps.files.stat(path).catch(() => ({ kind: "other", size: 0 }))
        if (kind === "file" && size > MAX_FILE_BYTES) return
        const now = await this.deps.files.state(path).catch(() => null)
        if (now === null) return
        if ((await this.deps.journal.observe({ ...actor, tool, path, now })) !== undefined) seen.push(path)
      })
    }
    return seen
  }

  /** The fingerprints of the files, SIGNATURE_BATCH at a time ("?" for one that cannot be looked at). */
  private async signatures(paths: readonly string[]): Promise<Map<string, string>> {
    const marks = new Map<string, string>()
    for (let at = 0; at < paths.length; at += SIGNATURE_BATCH) {
      const batch = paths.slice(at, at + SIGNATURE_BATCH)
      const found = await Promise.all(batch.map((path) => this.deps.files.signature(path).catch(() => "?")))
      for (const [i, path] of batch.entries()) marks.set(path, found[i] ?? "?")
    }
    return marks
  }

  /**
   * The bytes and mode of a file about to be changed by another tool; undefined when it is no file (not there yet). Throws for a
   * file too large to journal, so the change is not journaled at all (never as a creation, which an undo would delete).
   */
  async snapshot(path: string): Promise<FileState | undefined> {
    const { kind, size } = await this.deps.files.stat(path)
    if (kind !== "file") return undefined
    tooLarge("snapshot", path, size)
    return this.deps.files.state(path)
  }

  /**
   * Makes a change on disk and journals it, both at once: the journal takes its entry back when the write fails. A
   * journal that cannot record it gets the file put back, so no change stands that forge_undo cannot see, and the
   * refusal says so.
   */
  private async commit(input: RecordInput): Promise<void> {
    const { tool, path, before, after } = input
    // The mode is known already (the file's own, kept): given, the write need not look it up again.
    const writing = this.put(path, after, input.afterMode)
    const [wrote, journaled] = await Promise.allSettled([writing, this.deps.journal.record(input, writing)])
    if (wrote.status === "rejected") {
      const journal = journaled.status === "rejected" && journaled.reason !== wrote.reason ? ` (the journal: ${messageOf(journaled.reason)})` : ""
      throw new FileToolError(`${tool}: could not write ${path}: ${messageOf(wrote.reason)}. The file was left as it was.${journal}`)
    }
    if (journaled.status === "rejected") {
      const back = await this.put(path, before).then(
        () => "the file was put back as it was",
        (failure: unknown) => `and putting the file back failed too (${messageOf(failure)}): it holds the new content, unjournaled`,
      )
      throw new FileToolError(`${tool}: the change to ${path} could not be journaled (${messageOf(journaled.reason)}); ${back}.`)
    }
    await this.pruned(input)
  }

  private async put(path: string, content: Uint8Array | undefined, mode?: number): Promise<void> {
    if (content === undefined) await this.deps.files.remove(path)
    else await this.deps.files.write(path, content, mode)
  }

  /** Journals a change, then keeps the journal within its bound (the oldest turns go first). */
  private async journaled(input: RecordInput): Promise<void> {
    await this.deps.journal.record(input)
    await this.pruned(input)
  }

  /**
   * Keeps the journal within its bound. Asking the store its size is a query per change, so it is asked only when
   * the size last seen plus what this object has journaled since (whole contents: never less than what was stored)
   * could pass the bound, and at least every PRUNE_RECHECK changes (other processes journal too).
   */
  private async pruned(input: RecordInput): Promise<void> {
    const limit = this.deps.journalLimitBytes
    if (limit === undefined) return
    const added = (input.before?.byteLength ?? 0) + (input.after?.byteLength ?? 0)
    const seen = this.journalSize
    if (seen !== undefined && seen.bytes + added <= limit && seen.changes < PRUNE_RECHECK) {
      seen.bytes += added
      seen.changes += 1
      return
    }
    // The change is on disk and journaled: a prune that fails leaves the journal large, and the next change tries again.
    const report = await this.deps.journal.prune(limit).catch(() => undefined)
    this.journalSize = report === undefined ? undefined : { bytes: report.totalBytes, changes: 0 }
  }

  /** Refuses a path that is no regular file, naming what it is, and a file too large to read whole; else its stat. */
  private async requireFile(tool: string, path: string): Promise<PathStat> {
    const found = await this.deps.files.stat(path)
    const { kind, size } = found
    if (kind === "missing") throw new FileToolError(`${tool}: ${path} does not exist.`)
    if (kind === "folder") throw new FileToolError(`${tool}: ${path} is a folder, not a file.`)
    if (kind === "other") throw new FileToolError(`${tool}: ${path} is a special file (a device, a pipe or a socket), not a file.`)
    tooLarge(tool, path, size)
    return found
  }

  /**
   * Runs alone among this object's calls on files: after every call already queued, before any that comes later. A
   * rewind touches files it only learns while planning; a write running meanwhile would be overwritten and its entry
   * would name content the disk no longer holds.
   */
  private exclusive<T>(run: () => Promise<T>): Promise<T> {
    const next = Promise.allSettled([this.barrier, ...this.queues.values()]).then(run)
    this.barrier = next.catch(() => undefined)
    // Later calls on any file start a new queue, which begins with the barrier.
    this.queues.clear()
    return next
  }

  /** One call per file at a time: a read-modify-write never interleaves with another on the same file. */
  private serial<T>(path: string, run: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(path) ?? this.barrier
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

/** The patched text; a refusal names the tool and the file (the engine's own message knows neither). */
function patched(path: string, text: string, patches: readonly Patch[], ascii: Uint8Array | undefined): PatchResult {
  try {
    return applyPatches(text, patches, ascii)
  } catch (error) {
    if (error instanceof PatchError) throw new FileToolError(`forge_patch: ${path}: ${error.message}`)
    throw error
  }
}

/**
 * A file's text for a patch, and whether it is all ASCII: binary and non-UTF-8 files are refused, never patched as
 * mangled text. A byte-order mark stays part of the text, so a patched file keeps it.
 */
function textOf(tool: string, path: string, bytes: Uint8Array): { text: string; ascii: boolean } {
  const kind = binaryKindOf(bytes)
  if (kind !== undefined) throw new FileToolError(`${tool}: ${path} is a binary file (${kind}, ${sizeText(bytes.length)}); only text files are patched.`)
  if (!isUtf8(bytes)) throw new FileToolError(`${tool}: ${path} is not UTF-8 text, so it is not patched (the result would be mangled).`)
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  // ASCII reads the same as latin1, a plain copy: 1 ms for 10 MB where decoding UTF-8 takes 10.
  const ascii = isAscii(bytes)
  return { text: buffer.toString(ascii ? "latin1" : "utf8"), ascii }
}

/**
 * Refuses a file over MAX_FILE_BYTES: the tools read files whole (and the journal keeps them whole), so a huge one
 * would stall opencode or fill the journal.
 */
function tooLarge(tool: string, path: string, size: number): void {
  if (size <= MAX_FILE_BYTES) return
  throw new FileToolError(
    `${tool}: ${path} is ${sizeText(size)}, over the ${sizeText(MAX_FILE_BYTES)} the forge file tools read, change and journal whole; nothing was changed. Use forge_shell (head, sed, split) for a file this large.`,
  )
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

function lineCount(text: string): number {
  if (text === "") return 0
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0)
}
