import { sizeText } from "./file.kind"
import type { RewindReport } from "./journal.types"

// What forge_rewind answers: the preview of a rewind (what it would do, each file with its size, before the user is
// asked) and the rewind done.

/** What a rewind would do, for the model to relay; the dialog that asks the user shows the same on the call's line. */
export function rewindPreviewText(turn: string, report: RewindReport): string {
  const lines = [`Rewinding the session's files to ${turn} would:`]
  for (const r of report.restored)
    lines.push(`- ${r.path}: ${r.action} (${sizesText(r.bytesNow, r.bytesAfter)})${r.overrode === undefined ? "" : `, overwriting: ${r.overrode}`}`)
  for (const path of report.unchanged) lines.push(`- ${path}: nothing to write, already as it was`)
  for (const c of report.conflicts) lines.push(`- ${c.path}: conflict: ${c.why}`)
  if (lines.length === 1) lines.push("- nothing: the session changed no file since then")
  if (report.prunedUntil !== undefined)
    lines.push(`Not all of it: the journal dropped this session's changes up to ${new Date(report.prunedUntil).toISOString()} (files.journalMaxMB).`)
  return lines.join("\n")
}

/** "1.2 KB now, 900 B after", "300 B now, removed", "none now, 2.0 KB after". */
export function sizesText(now: number | null, after: number | null): string {
  const before = now === null ? "none now" : `${sizeText(now)} now`
  return `${before}, ${after === null ? "removed" : `${sizeText(after)} after`}`
}

export function rewindText(turn: string, report: RewindReport): string {
  const lines = [`Rewound the session's files to ${turn}:`]
  for (const r of report.restored) lines.push(`- ${r.path}: ${r.action}${r.overrode === undefined ? "" : ` (forced over: ${r.overrode})`}`)
  for (const path of report.unchanged) lines.push(`- ${path}: already as it was`)
  for (const c of report.conflicts) lines.push(`- ${c.path}: conflict: ${c.why}`)
  if (lines.length === 1) lines.push("- nothing: the session changed no file since then")
  if (report.prunedUntil !== undefined)
    lines.push(
      `Not all of it: the journal had dropped this session's changes up to ${new Date(report.prunedUntil).toISOString()} to stay within its size bound (files.journalMaxMB), so those changes (and files only they touched) were not rewound.`,
    )
  const replaced = report.restored.filter((r) => r.overrode !== undefined)
  if (replaced.length > 0) {
    lines.push(`Replaced ${replaced.length} file(s) that held changes Forge did not make (forge_undo on each brings them back):`)
    for (const r of replaced) lines.push(`- ${r.path}`)
  }
  if (report.conflicts.length > 0)
    lines.push(
      `${report.conflicts.length} conflict(s): call forge_rewind again with force: true to restore them too (the overwritten content stays in the journal).`,
    )
  return lines.join("\n")
}
