// The goal document's history lines: the Check Log (one line per check run), the Turn Ledger (one line per turn) and
// the Revisions list, rendered one line each and read back. A malformed line is an error naming its line.

import * as z from "zod"
import type { CheckLogLine, TurnActivity } from "../../machines/goal/goal.gates"
import { DocumentInputError } from "../documents/document.errors"
import { quoteLine } from "../documents/markdown.scan"
import { codeSpan, readCodeSpan } from "./goal.contract.text"
import { bulletItems, type Fail, NONE_ITEM, type SectionText } from "./goal.sections"

/** One run of one check. `label` is checkLabel(check); `detail` is kept to one line of at most 400 characters. */
export type CheckLogEntry = CheckLogLine

/** What one turn did; all zero reads `turn N: no activity`. */
export interface TurnLedgerEntry {
  at: string
  turn: number
  activity: TurnActivity
}

export const DETAIL_MAX = 400

const isoTime = z.iso.datetime({ offset: true })
const PLACEHOLDER = /^[ \t]*[-*+][ \t]+\(none\)[ \t]*$/

function need(ok: boolean, message: string): void {
  if (!ok) throw new DocumentInputError(message)
}

const isCount = (n: number, min: number): boolean => Number.isInteger(n) && n >= min

/** Whitespace (line breaks included) folded to single spaces, shortened to `max` characters. */
function fold(text: string, max: number): string {
  const folded = text.replace(/\s+/g, " ").trim()
  return folded.length > max ? `${folded.slice(0, max - 1)}…` : folded
}

/** One Check Log line (without the list marker's trailing newline). Throws DocumentInputError for a bad entry. */
export function renderCheckLogLine(entry: CheckLogEntry): string {
  const what = `check log entry (run ${JSON.stringify(entry.run)}, item ${entry.item})`
  need(isoTime.safeParse(entry.at).success, `${what}: at ${JSON.stringify(entry.at)} is not an ISO timestamp`)
  need(/^\S+$/.test(entry.run), `${what}: the run id must be one word`)
  need(isCount(entry.revision, 1) && isCount(entry.item, 1), `${what}: revision and item must be whole numbers of at least 1`)
  need(Number.isFinite(entry.ms) && entry.ms >= 0, `${what}: ms must be a duration of at least 0`)
  const label = entry.label.replace(/[\r\n\u2028\u2029]+/g, " ")
  need(label.trim() !== "", `${what}: the label is empty`)
  const detail = fold(entry.detail, DETAIL_MAX)
  const head = `- ${entry.at} run=${entry.run} rev${entry.revision} #${entry.item} ${entry.pass ? "PASS" : "FAIL"} (${Math.round(entry.ms)} ms)`
  return `${head} ${codeSpan(label)}${detail === "" ? "" : ` :: ${detail}`}`
}

const CHECK_LOG_HEAD = /^[ \t]*[-*+][ \t]+(\S+)[ \t]+run=(\S+)[ \t]+rev(\d+)[ \t]+#(\d+)[ \t]+(PASS|FAIL)[ \t]+\((\d+)[ \t]*ms\)[ \t]+/
const CHECK_LOG_FORMAT = "a Check Log line reads `- <ISO time> run=<id> rev<N> #<N> PASS|FAIL (<N> ms) `label` :: detail`"

/** The Check Log's entries; blank lines and the `- (none)` placeholder are skipped. */
export function readCheckLog(section: SectionText | undefined, fail: Fail): CheckLogEntry[] {
  const entries: CheckLogEntry[] = []
  for (const { text, line, fenced } of section?.lines ?? []) {
    if (text.trim() === "" || (!fenced && PLACEHOLDER.test(text))) continue
    const unreadable = (): never => fail(`unreadable Check Log line ${quoteLine(text)}: ${CHECK_LOG_FORMAT}`, line)
    const head = fenced ? null : CHECK_LOG_HEAD.exec(text)
    if (!head) return unreadable()
    const label = readCodeSpan(text, head[0].length)
    const rest = label ? /^(?:[ \t]+::(?:[ \t]+(.*))?)?[ \t]*$/.exec(text.slice(label.end)) : null
    if (!label || !rest) return unreadable()
    const at = head[1] ?? ""
    if (!isoTime.safeParse(at).success) fail(`Check Log time ${JSON.stringify(at)} is not an ISO timestamp`, line)
    const revision = Number(head[3])
    const item = Number(head[4])
    if (revision < 1 || item < 1) fail(`Check Log revision and item number start at 1 (got rev${head[3]} #${head[4]})`, line)
    const detail = (rest[1] ?? "").trim()
    entries.push({ at, run: head[2] ?? "", revision, item, pass: head[5] === "PASS", ms: Number(head[6]), label: label.text, detail })
  }
  return entries
}

/** One Turn Ledger line. Throws DocumentInputError for a bad entry. */
export function renderLedgerLine(entry: TurnLedgerEntry): string {
  const { writes, shell, checks, ticks } = entry.activity
  need(isoTime.safeParse(entry.at).success, `turn ledger entry: at ${JSON.stringify(entry.at)} is not an ISO timestamp`)
  need(isCount(entry.turn, 1), `turn ledger entry: turn ${entry.turn} must be a whole number of at least 1`)
  need(
    [writes, shell, checks, ticks].every((n) => isCount(n, 0)),
    `turn ${entry.turn}'s activity counts must be whole numbers of at least 0`,
  )
  const activity = writes + shell + checks + ticks === 0 ? "no activity" : `activity (writes ${writes}, shell ${shell}, checks ${checks}, ticks ${ticks})`
  return `- ${entry.at} turn ${entry.turn}: ${activity}`
}

const LEDGER_LINE =
  /^[ \t]*[-*+][ \t]+(\S+)[ \t]+turn[ \t]+(\d+):[ \t]+(?:no activity|activity[ \t]+\(writes[ \t]+(\d+),[ \t]*shell[ \t]+(\d+),[ \t]*checks[ \t]+(\d+),[ \t]*ticks[ \t]+(\d+)\))[ \t]*$/
const LEDGER_FORMAT =
  "a Turn Ledger line reads `- <ISO time> turn <N>: activity (writes <N>, shell <N>, checks <N>, ticks <N>)` or `- <ISO time> turn <N>: no activity`"

/** The Turn Ledger's entries; blank lines and the `- (none)` placeholder are skipped. */
export function readLedger(section: SectionText | undefined, fail: Fail): TurnLedgerEntry[] {
  const entries: TurnLedgerEntry[] = []
  for (const { text, line, fenced } of section?.lines ?? []) {
    if (text.trim() === "" || (!fenced && PLACEHOLDER.test(text))) continue
    const m = fenced ? null : LEDGER_LINE.exec(text)
    if (!m) return fail(`unreadable Turn Ledger line ${quoteLine(text)}: ${LEDGER_FORMAT}`, line)
    const at = m[1] ?? ""
    if (!isoTime.safeParse(at).success) fail(`Turn Ledger time ${JSON.stringify(at)} is not an ISO timestamp`, line)
    const turn = Number(m[2])
    if (turn < 1) fail(`Turn Ledger turn numbers start at 1 (got turn ${m[2]})`, line)
    const count = (group: string | undefined): number => (group === undefined ? 0 : Number(group))
    entries.push({ at, turn, activity: { writes: count(m[3]), shell: count(m[4]), checks: count(m[5]), ticks: count(m[6]) } })
  }
  return entries
}

/** One Revisions line for `text`. Throws DocumentInputError for an empty or multi-line text. */
export function renderRevisionLine(text: string): string {
  need(!/[\r\n\u2028\u2029]/.test(text), `the revision line has a line break: ${JSON.stringify(text)}`)
  need(text.trim() !== "", "the revision line is empty")
  need(text.trim() !== NONE_ITEM, `the revision line cannot be ${JSON.stringify(NONE_ITEM)}`)
  return `- ${text.trim()}`
}

/** The Revisions section's items (the text after `- `). */
export function readRevisions(section: SectionText | undefined, fail: Fail): string[] {
  return section ? bulletItems(section, fail, '"- <time> revision N (…): …"').map((item) => item.text) : []
}
