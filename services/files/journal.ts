// The undo journal of the forge file tools: every mutation of a file is recorded with the content before and after
// (content-addressed, so each version is stored once); `undo` walks a file back one change at a time, `rewind` puts
// back every file a session changed since a user turn, `observe` records a change Forge only saw (a shell command's),
// and `prune` keeps the journal under a size limit. Nothing is ever written over a change somebody else made since: a
// file the journal cannot prove held what Forge left there at every step since (journal.proof.ts) is refused (undo)
// or reported as a conflict (rewind) unless forced; a forced rewind keeps what it replaced, and undo takes it back.
import type { Clock } from "../lifecycle/lifecycle.ports"
import { JournalError, RewindMovedError, absolute } from "./journal.errors"
import { RecentContents, actionOf, blobsOf, difference, hashOf, messageOf, stateHash, when } from "./journal.content"
import type { JournalEntry, JournalFiles, JournalStore, JournalTurn, JournalWrite } from "./journal.ports"
import { proofBreak } from "./journal.proof"
import { planRewind } from "./journal.rewind"
import type { JournalActor, ObserveInput, PruneReport, PutBack, RecordInput, RewindInput, RewindReport, UndoResult } from "./journal.types"

/** The tool name of the entries `undo` records. */
export const UNDO_TOOL = "forge_undo"
/** The tool name of the entries `rewind` records. */
export const REWIND_TOOL = "forge_rewind"
/**
 * `undo` never reverts an undo (it walks past it to the change it reverted back to); a rewind it does revert, so a
 * rewind is one undoable change.
 */
const UNDO_SKIPS = [UNDO_TOOL] as const

export interface FileJournalDeps {
  store: JournalStore
  files: JournalFiles
  clock: Clock
}

export class FileJournal {
  private readonly store: JournalStore
  private readonly files: JournalFiles
  private readonly clock: Clock
  private tail: Promise<unknown> = Promise.resolve()
  private readonly recent = new RecentContents()

  constructor(deps: FileJournalDeps) {
    this.store = deps.store
    this.files = deps.files
    this.clock = deps.clock
  }

  /**
   * Journals one change to a file: both contents are stored once each and the entry appended. Given `made`, the change
   * under way (the file's write), the entry is appended meanwhile and taken back when the change fails, with whose
   * error it rejects. Returns the entry, or undefined when before and after are the same (nothing changed).
   */
  async record(input: RecordInput, made?: Promise<unknown>): Promise<JournalEntry | undefined> {
    const file = absolute(input.path)
    const before = this.recent.hash(file, input.before)
    const after = hashOf(input.after)
    if (before === after) {
      await made
      return undefined
    }
    const write: JournalWrite = {
      entry: {
        ...this.actor(input),
        tool: input.tool,
        path: file,
        before,
        after,
        beforeMode: input.before === undefined ? null : (input.beforeMode ?? null),
        afterMode: input.after === undefined ? null : (input.afterMode ?? null),
        observed: false,
        at: this.clock.now(),
      },
      blobs: blobsOf([input.before, before], [input.after, after]),
    }
    const [entry] = await this.serial(() => this.store.append([write]))
    try {
      await made
    } catch (error) {
      if (entry === undefined) throw error
      // A crash before this leaves the entry naming a change the disk does not hold: the proof then refuses an undo.
      const retracted = await this.serial(() => this.store.retract(entry.id)).then(
        () => undefined,
        (failure: unknown) => failure,
      )
      if (retracted === undefined) throw error
      throw new JournalError(`${messageOf(error)}; and its journal entry could not be taken back (${messageOf(retracted)})`, file)
    }
    this.recent.remember(file, input.after, after)
    return entry
  }

  /**
   * Journals a change Forge saw but did not make (a shell command's): from what the journal last knew of the file to
   * what it holds now. It breaks the proof of every undo and rewind across it, so none overwrites that change unseen.
   * Returns undefined when the file holds what the journal last knew (nothing to record).
   */
  async observe(input: ObserveInput): Promise<JournalEntry | undefined> {
    const file = absolute(input.path)
    return this.serial(async () => {
      const last = (await this.store.history(file)).at(-1)
      if (last === undefined) return undefined
      const after = stateHash(input.now)
      if (after === last.after) return undefined
      const [entry] = await this.store.append([
        {
          entry: {
            ...this.actor(input),
            tool: input.tool,
            path: file,
            before: last.after,
            after,
            beforeMode: last.afterMode,
            afterMode: input.now?.mode ?? null,
            observed: true,
            at: this.clock.now(),
          },
          blobs: blobsOf([input.now?.bytes, after]),
        },
      ])
      return entry
    })
  }

  /**
   * Reverts the newest change to `path` that stands and is no undo (a rewind counts: undoing it puts back what the
   * rewind replaced): the journal must prove the file held what Forge left there at every step since that change
   * (journal.proof.ts), and it gets back what it held before it (a creation undone removes the file, a removal undone
   * re-creates it, with its mode; a link comes back a link). Called again, it walks back further. `by` is who asks
   * (defaults to the reverted entry's session).
   */
  async undo(target: string, by?: JournalActor): Promise<UndoResult> {
    const file = absolute(target)
    return this.serial(async () => {
      // A rewind that changed nothing here (the file was already back) has nothing to take back: walked past.
      const reverted = (await this.store.listByPath(file, { excludeTools: UNDO_SKIPS })).find(
        (entry) => entry.tool !== REWIND_TOOL || entry.before !== entry.after,
      )
      if (reverted === undefined) {
        throw new JournalError(
          `nothing to undo for ${file}: Forge's journal holds no change to it that is not undone already ` +
            "(only changes made through Forge's file tools and opencode's write/edit/apply_patch are journaled, and the oldest turns are pruned).",
          file,
        )
      }
      if (reverted.observed) {
        throw new JournalError(
          `cannot undo the last change to ${file}: ${reverted.tool} changed it at ${when(reverted.at)}, outside Forge's file tools, and Forge does not undo it. ` +
            "Nothing was written. Look at the file and edit it yourself.",
          file,
        )
      }
      const disk = await this.files.state(file).catch((error: unknown) => {
        throw new JournalError(`cannot undo the last change to ${file}: the file cannot be read (${messageOf(error)}). Nothing was written.`, file)
      })
      const broken = proofBreak({
        history: await this.store.history(file),
        from: reverted.id,
        diskHash: stateHash(disk),
        differs: (expected) => difference(disk, expected),
      })
      if (broken !== undefined) {
        throw new JournalError(
          `cannot undo the last change to ${file} (${reverted.tool} at ${when(reverted.at)}): the file changed since by someone else — ${broken}. ` +
            "Nothing was written. Look at the file and edit it yourself; forge_undo only reverts a file that still holds what Forge left there.",
          file,
        )
      }
      const content = await this.content(reverted.before, reverted)
      await this.put(file, content, reverted.beforeMode, `could not undo ${file}`)
      let entry: JournalEntry | undefined
      try {
        ;[entry] = await this.store.append([
          {
            entry: {
              ...this.actor(by ?? { session: reverted.session }),
              tool: UNDO_TOOL,
              path: file,
              before: reverted.after,
              after: reverted.before,
              beforeMode: reverted.afterMode,
              afterMode: reverted.beforeMode,
              observed: false,
              at: this.clock.now(),
            },
            blobs: [],
            reverts: [reverted.id],
          },
        ])
      } catch (error) {
        const back = await this.putBack([{ path: file, content: disk?.bytes, mode: disk?.mode ?? null }])
        throw new JournalError(`could not journal the undo of ${file}: ${messageOf(error)}; ${back}. Try forge_undo again.`, file)
      }
      if (entry === undefined) throw new JournalError(`could not journal the undo of ${file}: the store returned no entry`, file)
      return { path: file, action: actionOf(reverted.after, reverted.before), reverted, entry }
    })
  }

  /**
   * Puts every file the session changed at or after `since` back as it was before its first change in that range,
   * in one step: planned first (a file the journal cannot prove holds what Forge left there at every step since that
   * first change, journal.proof.ts, is a conflict, left alone unless `force`; one that cannot be read, or whose path
   * now leads elsewhere, is left alone even then), then written, then journaled (one entry per file reverting every
   * entry of the range; see journal.standing.ts for how a revert of a revert lets a change stand again). The entry
   * keeps what the rewind replaced, so forge_undo takes the rewind back. A failed write puts back what was already
   * restored and throws. With `preview` only the plan is made; with `expect` the rewind writes only while its plan is
   * still the preview's (else RewindMovedError, carrying the new plan).
   */
  async rewind(input: RewindInput): Promise<RewindReport> {
    if (!Number.isFinite(input.since)) throw new JournalError(`rewind: since must be a time in epoch milliseconds, got ${input.since}`)
    return this.serial(async () => {
      const { report, steps, writes } = await planRewind({ store: this.store, files: this.files, content: (hash, entry) => this.content(hash, entry) }, input)
      if (input.preview === true) return report
      if (input.expect !== undefined && report.fingerprint !== input.expect) throw new RewindMovedError(report)
      const done: PutBack[] = []
      for (const step of writes) {
        try {
          await this.put(step.path, step.target, step.targetMode)
        } catch (error) {
          const back = await this.putBack(done)
          throw new JournalError(`rewind stopped: could not restore ${step.path}: ${messageOf(error)}; ${back}. Nothing was journaled.`, step.path)
        }
        done.push({ path: step.path, content: step.current, mode: step.currentMode })
      }
      try {
        const at = this.clock.now()
        await this.store.append(
          steps.map(
            (step): JournalWrite => ({
              entry: {
                ...this.actor(input),
                tool: REWIND_TOOL,
                path: step.path,
                before: step.currentHash,
                after: step.targetHash,
                beforeMode: step.currentMode,
                afterMode: step.targetHash === null ? null : step.targetMode,
                observed: false,
                at,
              },
              blobs: blobsOf([step.current, step.currentHash], [step.target, step.targetHash]),
              reverts: step.reverts,
              covers: step.covers,
            }),
          ),
        )
      } catch (error) {
        const back = await this.putBack(done)
        throw new JournalError(`could not journal the rewind: ${messageOf(error)}; ${back}. Try the rewind again.`)
      }
      return report
    })
  }

  /** The paths under `folder` the journal has entries for, the most recently changed first, at most `limit`. */
  paths(folder: string, limit: number): Promise<string[]> {
    return this.store.paths(absolute(folder), limit)
  }

  /**
   * Keeps the blobs' total size at or under `limitBytes` by dropping whole turns, oldest first (with their blobs once
   * no remaining entry names them), never the newest turn (the one holding the newest entry).
   */
  async prune(limitBytes: number): Promise<PruneReport> {
    if (!Number.isSafeInteger(limitBytes) || limitBytes < 0) throw new JournalError(`prune: the limit must be a whole number of bytes >= 0, got ${limitBytes}`)
    return this.serial(async () => {
      const report: PruneReport = { limitBytes, totalBytes: await this.store.blobBytes(), dropped: [], droppedEntries: 0, freedBytes: 0 }
      if (report.totalBytes <= limitBytes) return report
      const turns = await this.store.turns()
      const newest = turns.reduce<JournalTurn | undefined>((found, turn) => (found === undefined || turn.lastId > found.lastId ? turn : found), undefined)
      for (const turn of turns) {
        if (report.totalBytes <= limitBytes) break
        if (turn === newest) continue
        const pruned = await this.store.dropTurns([turn])
        report.dropped.push(turn)
        report.droppedEntries += pruned.entries
        report.freedBytes += pruned.freedBytes
        report.totalBytes = pruned.totalBytes
      }
      return report
    })
  }

  private actor(by: JournalActor): { session: string; message: string | null; turn: string | null } {
    return { session: by.session, message: by.message ?? null, turn: by.turn ?? null }
  }

  /** The content a hash names (undefined for no file); a blob that is missing is a damaged journal. */
  private async content(hash: string | null, entry: JournalEntry): Promise<Uint8Array | undefined> {
    if (hash === null) return undefined
    const bytes = await this.store.readBlob(hash)
    if (bytes === undefined) {
      throw new JournalError(
        `the journal of ${entry.path} is damaged: the content ${hash} that entry ${entry.id} (${entry.tool} at ${when(entry.at)}) names is missing. ` +
          "Nothing was written; this version of the file cannot be restored.",
        entry.path,
      )
    }
    return bytes
  }

  /** Writes the content (with its mode, when known), or removes the file for none. */
  private async put(file: string, content: Uint8Array | undefined, mode: number | null, failure?: string): Promise<void> {
    try {
      if (content === undefined) await this.files.remove(file)
      else await this.files.write(file, content, mode)
    } catch (error) {
      if (failure === undefined) throw error
      throw new JournalError(`${failure}: ${messageOf(error)}. The file was left as it was.`, file)
    }
  }

  /** Puts files back as they were (newest write first); says what could not be. */
  private async putBack(files: readonly PutBack[]): Promise<string> {
    const failed: string[] = []
    for (const file of [...files].reverse()) {
      await this.put(file.path, file.content, file.mode).catch((error: unknown) => failed.push(`${file.path} (${messageOf(error)})`))
    }
    if (files.length === 0) return "no file was changed"
    return failed.length === 0 ? "every file it had written was put back as it was" : `these files could not be put back as they were: ${failed.join(", ")}`
  }

  /** Runs journal operations one at a time, so a plan, its writes and its entries never interleave with another's. */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(work)
    this.tail = result.catch(() => undefined)
    return result
  }
}
