// A frontmatter codec for one document kind, driven by its zod schema and its field order: reading (YAML syntax and
// schema problems reported on the file line of the key at fault), rendering in the kind's field order, and patching
// single keys in place so every other byte of the document survives.

import { isMap, isScalar, LineCounter, parseDocument, stringify, type Document } from "yaml"
import type { z } from "zod"
import { DocumentError, DocumentInputError } from "./document.errors"
import { type FrontmatterBlock, splitFrontmatter } from "./frontmatter.block"

export interface FrontmatterSpec<T extends object> {
  /** The document kind, named in render errors ("invalid plan frontmatter: …"). */
  kind: string
  /**
   * Validates the YAML as plain data and gives the kind's fields. Its messages are shown verbatim, so each should
   * name the key (e.g. "missing title"); issue paths place the message on the key's line.
   */
  schema: z.ZodType<T>
  /** Every key the codec writes, in the order `render` writes them and `patch` applies them. */
  order: readonly (keyof T & string)[]
  /** Keys a patch may remove by setting them to undefined; any other key is required. */
  removable?: readonly (keyof T & string)[]
}

export interface FrontmatterCodec<T extends object> {
  /** Reads and validates the frontmatter of a located block. Throws DocumentError naming the source and line. */
  read(block: FrontmatterBlock, source: string): T
  /** Locates and reads the frontmatter of a whole document. */
  parse(text: string, source: string): { fields: T; block: FrontmatterBlock }
  /** The YAML between the delimiters, keys in the spec's order. Throws DocumentInputError for invalid fields. */
  render(fields: T): string
  /**
   * Applies `patch` key by key: a present key's lines are rewritten, an absent key is appended before the closing
   * delimiter, a removable key set to undefined is removed. Nothing outside the patched entries changes. The result
   * is validated as a whole and returned only when valid (DocumentError otherwise).
   */
  patch(text: string, source: string, patch: Partial<T>): string
}

interface LoadedYaml {
  doc: Document
  counter: LineCounter
}

/** Parses the YAML, turning a syntax error into a DocumentError on the file line where it sits. */
function loadYaml(block: FrontmatterBlock, source: string): LoadedYaml {
  const counter = new LineCounter()
  const doc = parseDocument(block.yaml, { lineCounter: counter, prettyErrors: true, uniqueKeys: true })
  const error = doc.errors[0]
  if (error) {
    const yamlLine = error.linePos?.[0].line ?? 1
    const what = (error.message.split("\n")[0] ?? error.message).replace(/ at line \d+, column \d+:?$/, "")
    throw new DocumentError(source, `YAML syntax error in frontmatter: ${what}`, yamlLine + 1)
  }
  if (doc.contents !== null && !isMap(doc.contents)) {
    throw new DocumentError(source, "frontmatter must be a mapping of keys to values", 2)
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

/** One `key: value` entry as YAML, quoted wherever a plain scalar would read back differently. */
function renderEntry(key: string, value: unknown): string {
  return stringify({ [key]: value }, { lineWidth: 0, minContentWidth: 0, blockQuote: false })
}

function lineStartOf(text: string, offset: number): number {
  return text.lastIndexOf("\n", offset - 1) + 1
}

/** Offset just past the terminator of the line holding `offset`. */
function lineEndOf(text: string, offset: number): number {
  const end = text.indexOf("\n", offset)
  return end === -1 ? text.length : end + 1
}

function patchKey(text: string, source: string, key: string, value: unknown): string {
  const block = splitFrontmatter(text, source)
  const loaded = loadYaml(block, source)
  const entry = value === undefined ? "" : renderEntry(key, value).replace(/\n/g, block.eol)
  const contents = loaded.doc.contents
  const pair = isMap(contents) ? contents.items.find((p) => isScalar(p.key) && String(p.key.value) === key) : undefined
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

export function createFrontmatterCodec<T extends object>(spec: FrontmatterSpec<T>): FrontmatterCodec<T> {
  const removable: ReadonlySet<string> = new Set(spec.removable ?? [])
  const known: ReadonlySet<string> = new Set(spec.order)

  function read(block: FrontmatterBlock, source: string): T {
    const loaded = loadYaml(block, source)
    const result = spec.schema.safeParse(loaded.doc.toJS() ?? {})
    if (result.success) return result.data
    const lines = keyLines(loaded)
    // Report the first problem in reading order; a missing key points at the opening delimiter.
    const issues = result.error.issues
      .map((issue, order) => ({ issue, order, line: lines.get(String(issue.path[0])) ?? 1 }))
      .sort((a, b) => a.line - b.line || a.order - b.order)
    const first = issues[0]
    if (!first) throw new DocumentError(source, "invalid frontmatter", 1)
    const more = issues.length > 1 ? ` (+${issues.length - 1} more frontmatter problem${issues.length > 2 ? "s" : ""})` : ""
    throw new DocumentError(source, `${first.issue.message}${more}`, first.line)
  }

  function render(fields: T): string {
    const result = spec.schema.safeParse(fields)
    if (!result.success) {
      const issue = result.error.issues[0]
      throw new DocumentInputError(`invalid ${spec.kind} frontmatter: ${issue ? issue.message : "unknown problem"}`)
    }
    let yaml = ""
    for (const key of spec.order) {
      const value = fields[key]
      if (value !== undefined) yaml += renderEntry(key, value)
    }
    return yaml
  }

  function patch(text: string, source: string, changes: Partial<T>): string {
    for (const key of Object.keys(changes)) {
      if (!known.has(key)) {
        throw new DocumentInputError(`frontmatter key "${key}" is not a ${spec.kind} key (expected one of ${spec.order.join(", ")})`)
      }
    }
    let current = text
    for (const key of spec.order) {
      if (!Object.hasOwn(changes, key)) continue
      const value = changes[key]
      if (value === undefined && !removable.has(key)) {
        throw new DocumentInputError(`frontmatter key "${key}" is required and cannot be removed`)
      }
      current = patchKey(current, source, key, value)
    }
    read(splitFrontmatter(current, source), source)
    return current
  }

  return {
    read,
    parse(text, source) {
      const block = splitFrontmatter(text, source)
      return { fields: read(block, source), block }
    },
    render,
    patch,
  }
}
