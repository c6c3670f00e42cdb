import path from "node:path"
import { sizeText } from "../../../services/files/file.kind"
import type { RewindReport } from "../../../services/files/journal.types"
import { sizesText } from "../../../services/files/rewind.text"
import type { ScreenFields } from "../tool.screen"

// The rewinds forge_rewind previewed, by session and by the call's own words (the turn or message, and force): the
// confirming call's TUI line draws its preview from here at once, before anything waits, and the tool asks only for a
// rewind whose preview was shown. Kept in this process only, the newest few: a preview is the user's to decide on now.

/** A preview as the model was answered it. */
export interface ShownRewind {
  /** "turn 2 (msg_…)": the user turn it rewinds to. */
  turn: string
  report: RewindReport
}

/** Previews kept in all: a session decides on its newest, and an old one is previewed again in one call. */
const KEPT = 64

export class RewindPreviews {
  private readonly shown = new Map<string, ShownRewind>()

  remember(session: string, args: unknown, preview: ShownRewind): void {
    const key = previewKey(session, args)
    if (key === undefined) return
    this.shown.delete(key)
    this.shown.set(key, preview)
    if (this.shown.size > KEPT) this.shown.delete(this.shown.keys().next().value as string)
  }

  find(session: string, args: unknown): ShownRewind | undefined {
    const key = previewKey(session, args)
    return key === undefined ? undefined : this.shown.get(key)
  }

  forget(session: string, args: unknown): void {
    const key = previewKey(session, args)
    if (key !== undefined) this.shown.delete(key)
  }
}

/** `ses|turn 2|force` from the call's arguments as the model sent them; undefined for arguments that name no turn. */
function previewKey(session: string, args: unknown): string | undefined {
  if (args === null || typeof args !== "object") return undefined
  const { turn, message, force } = args as { turn?: unknown; message?: unknown; force?: unknown }
  const named = typeof turn === "number" ? `turn ${turn}` : typeof message === "string" ? `message ${message}` : undefined
  return named === undefined ? undefined : `${session}|${named}|${force === true ? "force" : "keep"}`
}

/**
 * A forge_rewind call's line: a preview says nothing changes yet; a confirmation (the dialog under it) lists every file
 * the rewind writes — restored, deleted, recreated, or overwritten over somebody else's change — and every conflict it
 * leaves alone, each with its size, as the preview the model was answered found them.
 */
export function rewindCallFields(args: unknown, shown: ShownRewind | undefined, workspace: string): ScreenFields {
  const confirm = args !== null && typeof args === "object" && (args as { confirm?: unknown }).confirm === true
  if (!confirm) return { decide: "preview: nothing changes yet" }
  if (shown === undefined) return { decide: "refused: no preview of this rewind was shown" }
  const fields: ScreenFields = { decide: `rewind to ${shown.turn}` }
  const shorter = (file: string) => (file.startsWith(workspace + path.sep) ? path.relative(workspace, file) : file)
  const counts = new Map<string, number>()
  const add = (kind: string, value: string) => {
    const n = (counts.get(kind) ?? 0) + 1
    counts.set(kind, n)
    fields[`${kind} ${n}`] = value
  }
  const { report } = shown
  for (const r of report.restored) {
    const sizes = sizesText(r.bytesNow, r.bytesAfter)
    if (r.overrode !== undefined) add("OVERWRITE", `${shorter(r.path)} (${sizes}; not Forge's change, forge_undo brings it back)`)
    else add(r.action === "removed" ? "delete" : r.action === "recreated" ? "recreate" : "restore", `${shorter(r.path)} (${sizes})`)
  }
  for (const c of report.conflicts)
    add("conflict", `${shorter(c.path)} (${c.bytes === null ? "missing or unreadable" : `${sizeText(c.bytes)} now`}), left alone`)
  if (report.unchanged.length > 0) fields["as it was"] = report.unchanged.length
  if (report.restored.length === 0) fields.writes = "nothing"
  return fields
}
