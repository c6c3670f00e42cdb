// The YAML frontmatter between the two `---` lines: locating it, validating it (zod), rendering it, and patching
// single keys in place so every other byte of the document survives.

import { isMap, isScalar, LineCounter, parseDocument, stringify, type Document } from "yaml"
import { z } from "zod"
import { PlanDocumentError, PlanInputError } from "./plan.errors"
import { PLAN_STATUSES, type PlanFrontmatter, type PlanStatus } from "./plan.types"

/** Where the frontmatter sits in a document. Offsets are 0-based into the text, lines 1-based. */
export interface FrontmatterBlock {
  /** The YAML between the delimiter lines (ends with a line terminator unless empty). */
  yaml: string
  /** Offset where the YAML starts (just after the opening `---` line). */
  yamlStart: number
  /** Offset of the closing `---` line. */
  closeStart: number
  /** Line number of the closing `---` line: the number of lines before the body. */
  closeLine: number
  /** Everything after the closing delimiter line. */
  body: string
  /** The line terminator the opening line uses, reused for lines the codec writes. */
  eol: "\n" | "\r\n"
}

const DELIMITER = /^---[ \t]*\r?$/
const STATUS_LIST = PLAN_STATUSES.join(", ")
const FIELD_ORDER = ["status", "title", "created", "updated", "session", "successor"] as const
type Field = (typeof FIELD_ORDER)[number]

const show = (value: unknown): string => (typeof value === "string" ? JSON.stringify(value) : String(value))

const singleLineText = (key: string, required: boolean) =>
  z
    .string({
      error: (iss) =>
        iss.input === undefined && required ? `missing ${key}` : `${key} must be text, got ${show(iss.input)}`,
    })
    .refine((s) => s.trim() !== "", { message: `${key} is empty` })
    .refine((s) => !/[\r\n\u2028\u2029]/.test(s), { message: `${key} must be a single line` })

const timestamp = (key: string) =>
  z.iso.datetime({
    offset: true,
    error: (iss) =>
      iss.input === undefined
        ? `missing ${key}`
        : `${key} ${show(iss.input)} is not an ISO timestamp (e.g. 2026-11-30T03:00:00.000Z)`,
  })

const frontmatterSchema = z
  .object({
    status: z.enum(PLAN_STATUSES as readonly [PlanStatus, ...PlanStatus[]], {
      error: (iss) =>
        iss.input === undefined
          ? `missing status (expected ${STATUS_LIST})`
          : `unknown status ${show(iss.input)} (expected ${STATUS_LIST})`,
    }),
    title: singleLineText("title", true),
    created: timestamp("created"),
    // Hand-written plans may omit `updated`; it then reads as `created`.
    updated: timestamp("updated").optional(),
    session: singleLineText("session", false).nullish(),
    successor: singleLineText("successor", false).nullish(),
  })
  .superRefine((fm, ctx) => {
    const hasSuccessor = typeof fm.successor === "string"
    if (fm.status === "superseded" && !hasSuccessor) {
      ctx.addIssue({ code: "custom", path: ["status"], message: "status is superseded but no successor is given" })
    }
    if (fm.status !== "superseded" && hasSuccessor) {
      ctx.addIssue({
        code: "custom",
        path: ["successor"],
        message: `successor is only allowed when status is superseded (status is ${fm.status})`,
      })
    }
  })

type ParsedFields = z.infer<typeof frontmatterSchema>

function toFrontmatter(fields: ParsedFields): PlanFrontmatter {
  const fm: PlanFrontmatter = {
    status: fields.status,
    title: fields.title,
    created: fields.created,
    updated: fields.updated ?? fields.created,
  }
  if (typeof fields.session === "string") fm.session = fields.session
  if (typeof fields.successor === "string") fm.successor = fields.successor
  return fm
}

/** Whether a text (leading blank lines and a BOM aside) opens with a whole `---` … `---` block. */
export function startsWithFrontmatter(text: string): boolean {
  const trimmed = text.replace(/^\uFEFF/, "").replace(/^(?:[ \t]*\r?\n)+/, "")
  try {
    splitFrontmatter(trimmed, "")
    return true
  } catch {
    return false
  }
}

/** Locates the frontmatter. Throws PlanDocumentError when it is missing or never closed. */
export function splitFrontmatter(text: string, source: string): FrontmatterBlock {
  const firstEnd = text.indexOf("\n")
  const first = firstEnd === -1 ? text : text.slice(0, firstEnd)
  if (!DELIMITER.test(first)) {
    throw new PlanDocumentError(source, `missing frontmatter: the document must start with a "---" line`, 1)
  }
  const eol = first.endsWith("\r") ? "\r\n" : "\n"
  const yamlStart = firstEnd === -1 ? text.length : firstEnd + 1
  let line = 2
  for (let start = yamlStart; start < text.length; line++) {
    const end = text.indexOf("\n", start)
    const current = end === -1 ? text.slice(start) : text.slice(start, end)
    if (DELIMITER.test(current)) {
      const bodyStart = end === -1 ? text.length : end + 1
      return {
        yaml: text.slice(yamlStart, start),
        yamlStart,
        closeStart: start,
        closeLine: line,
        body: text.slice(bodyStart),
        eol,
      }
    }
    if (end === -1) break
    start = end + 1
  }
  throw new PlanDocumentError(source, `unterminated frontmatter: no closing "---" line after the opening one`, 1)
}

interface LoadedYaml {
  doc: Document
  counter: LineCounter
}

/** Parses the YAML, turning a syntax error into a PlanDocumentError on the file line where it sits. */
function loadYaml(block: FrontmatterBlock, source: string): LoadedYaml {
  const counter = new LineCounter()
  const doc = parseDocument(block.yaml, { lineCounter: counter, prettyErrors: true, uniqueKeys: true })
  const error = doc.errors[0]
  if (error) {
    const yamlLine = error.linePos?.[0].line ?? 1
    const what = (error.message.split("\n")[0] ?? error.message).replace(/ at line \d+, column \d+:?$/, "")
    throw new PlanDocumentError(source, `YAML syntax error in frontmatter: ${what}`, yamlLine + 1)
  }
  if (doc.contents !== null && !isMap(doc.contents)) {
    throw new PlanDocumentError(source, "frontmatter must be a mapping of keys to values", 2)
  }
  return { doc, counter }
}

/** File line of each top-level key. */
function keyLines(loaded: LoadedYaml): Map<string, number> {
  const lines = new Map<string, number>()
  const contents = loaded.doc.contents
  if (!isMap(contents)) return lines
  for (const pair of contents.items) {
    if (isScalar(pair.key) && pair.key.range) {
      lines.set(String(pair.key.value), loaded.counter.linePos(pair.key.range[0]).line + 1)
    }
  }
  return lines
}

/** Reads and validates the frontmatter of a located block. */
export function readFrontmatter(block: FrontmatterBlock, source: string): PlanFrontmatter {
  const loaded = loadYaml(block, source)
  const result = frontmatterSchema.safeParse(loaded.doc.toJS() ?? {})
  if (result.success) return toFrontmatter(result.data)
  const lines = keyLines(loaded)
  // Report the first problem in reading order; a missing key points at the opening delimiter.
  const issues = result.error.issues
    .map((issue, order) => ({ issue, order, line: lines.get(String(issue.path[0])) ?? 1 }))
    .sort((a, b) => a.line - b.line || a.order - b.order)
  const first = issues[0]
  if (!first) throw new PlanDocumentError(source, "invalid frontmatter", 1)
  const more = issues.length > 1 ? ` (+${issues.length - 1} more frontmatter problem${issues.length > 2 ? "s" : ""})` : ""
  throw new PlanDocumentError(source, `${first.issue.message}${more}`, first.line)
}

/** One `key: value` entry as YAML, quoted wherever a plain scalar would read back differently. */
function renderEntry(key: Field, value: string): string {
  return stringify({ [key]: value }, { lineWidth: 0, minContentWidth: 0, blockQuote: false })
}

/** The YAML between the delimiters, keys in canonical order. Throws PlanInputError for an invalid frontmatter. */
export function renderFrontmatter(fm: PlanFrontmatter): string {
  const result = frontmatterSchema.safeParse(fm)
  if (!result.success) {
    const issue = result.error.issues[0]
    throw new PlanInputError(`invalid plan frontmatter: ${issue ? issue.message : "unknown problem"}`)
  }
  let yaml = ""
  for (const key of FIELD_ORDER) {
    const value = fm[key]
    if (typeof value === "string") yaml += renderEntry(key, value)
  }
  return yaml
}

/**
 * Applies `patch` to the frontmatter key by key: a present key's lines are rewritten, an absent key is appended
 * before the closing delimiter, and `session` / `successor` set to undefined are removed. Nothing outside the
 * patched entries changes. The result is validated as a whole (e.g. superseded needs a successor).
 */
export function patchFrontmatter(text: string, source: string, patch: Partial<PlanFrontmatter>): string {
  let current = text
  for (const key of FIELD_ORDER) {
    if (!Object.prototype.hasOwnProperty.call(patch, key)) continue
    const value = patch[key]
    if (value === undefined && key !== "session" && key !== "successor") {
      throw new PlanInputError(`frontmatter key "${key}" is required and cannot be removed`)
    }
    if (value !== undefined && typeof value !== "string") {
      throw new PlanInputError(`frontmatter key "${key}" must be a string`)
    }
    current = patchKey(current, source, key, value)
  }
  readFrontmatter(splitFrontmatter(current, source), source)
  return current
}

function patchKey(text: string, source: string, key: Field, value: string | undefined): string {
  const block = splitFrontmatter(text, source)
  const loaded = loadYaml(block, source)
  const entry = value === undefined ? "" : renderEntry(key, value).replace(/\n/g, block.eol)
  const contents = loaded.doc.contents
  const pair = isMap(contents)
    ? contents.items.find((p) => isScalar(p.key) && String(p.key.value) === key)
    : undefined
  let yaml: string
  if (pair && isScalar(pair.key) && pair.key.range) {
    const from = lineStartOf(block.yaml, pair.key.range[0])
    const valueRange = (pair.value as { range?: [number, number, number] } | null)?.range
    const valueEnd = valueRange ? Math.max(valueRange[1], pair.key.range[1]) : pair.key.range[1]
    const to = lineEndOf(block.yaml, Math.max(valueEnd - 1, pair.key.range[0]))
    yaml = block.yaml.slice(0, from) + entry + block.yaml.slice(to)
  } else if (value === undefined) {
    return text
  } else {
    // A frontmatter whose last line lacks a terminator cannot occur (the closing line follows it), so appending is safe.
    yaml = block.yaml + entry
  }
  return text.slice(0, block.yamlStart) + yaml + text.slice(block.closeStart)
}

function lineStartOf(text: string, offset: number): number {
  return text.lastIndexOf("\n", offset - 1) + 1
}

/** Offset just past the terminator of the line holding `offset`. */
function lineEndOf(text: string, offset: number): number {
  const end = text.indexOf("\n", offset)
  return end === -1 ? text.length : end + 1
}
