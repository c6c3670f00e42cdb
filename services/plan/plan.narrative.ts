// Terminal narrative sections. They are appended after the narrative marker, where the parser never looks, and
// every line of caller-provided text is quoted with "> " so no reason or evidence can start a heading or a marker.

import * as z from "zod"
import { PlanInputError } from "./plan.errors"
import { splitLines } from "../documents/markdown.scan"
import { findNarrative, NARRATIVE_MARKER } from "./plan.markdown"
import type { NarrativeEntry } from "./plan.types"

const singleLine = (what: string) =>
  z
    .string()
    .refine((s) => s.trim() !== "", { message: `${what} is empty` })
    .refine((s) => !/[\r\n\u2028\u2029]/.test(s), { message: `${what} must be a single line` })

const at = z.iso.datetime({ offset: true, error: "at must be an ISO timestamp (e.g. 2026-11-30T03:00:00.000Z)" })

const entrySchema = z.discriminatedUnion("kind", [
  z.object({
    at,
    kind: z.literal("closed"),
    results: z.array(z.object({ criterion: z.string(), pass: z.boolean(), evidence: z.string() })),
  }),
  z.object({ at, kind: z.literal("abandoned"), reason: z.string().optional() }),
  z.object({ at, kind: z.literal("superseded"), reason: z.string().optional(), successor: singleLine("successor") }),
])

const NONE_GIVEN = "(none given)"

/** Caller text split on every markdown line ending, each line quoted. */
function quote(text: string): string[] {
  return text.split(/\r\n|\r|\n|\u2028|\u2029/).map((line) => (line === "" ? ">" : `> ${line}`))
}

/** Folds caller text onto one line, for entries that promise one line each. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim()
}

function reasonLines(reason: string | undefined): string[] {
  const given = reason !== undefined && reason.trim() !== "" ? reason : NONE_GIVEN
  return quote(`Reason: ${given}`)
}

function sectionLines(entry: NarrativeEntry): string[] {
  const lines = [`## ${entry.at} — ${entry.kind}`]
  switch (entry.kind) {
    case "closed":
      if (entry.results.length === 0) lines.push(...quote("(no acceptance criteria)"))
      for (const result of entry.results) {
        const evidence = oneLine(result.evidence) || NONE_GIVEN
        lines.push(...quote(`${result.pass ? "PASS" : "FAIL"}: ${oneLine(result.criterion)} — evidence: ${evidence}`))
      }
      break
    case "abandoned":
      lines.push(...reasonLines(entry.reason))
      break
    case "superseded":
      lines.push(...reasonLines(entry.reason), ...quote(`Successor: ${entry.successor.trim()}`))
      break
  }
  return lines
}

/**
 * Appends a dated narrative section, adding the narrative marker first when the document has none yet. Only bytes
 * after the end of `text` are added (plus a line terminator if the text lacked one).
 */
export function appendNarrative(text: string, entry: NarrativeEntry): string {
  const checked = entrySchema.safeParse(entry)
  if (!checked.success) {
    const issue = checked.error.issues[0]
    const path = issue?.path.join(".") ?? ""
    throw new PlanInputError(`invalid narrative entry${path ? ` (${path})` : ""}: ${issue?.message ?? "unknown problem"}`)
  }
  const eol = text.includes("\r\n") ? "\r\n" : "\n"
  const hasNarrative = findNarrative(splitLines(text)) !== -1
  const lines = hasNarrative ? ["", ...sectionLines(entry)] : ["", NARRATIVE_MARKER, ...sectionLines(entry)]
  const base = text === "" || text.endsWith("\n") ? text : text + eol
  return base + lines.join(eol) + eol
}
