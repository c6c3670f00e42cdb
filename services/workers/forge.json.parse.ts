import { getNodeValue, type Node, type ParseError, parseTree, printParseErrorCode } from "jsonc-parser"
import * as z from "zod"
import { type WorkerFinding, workerError, workerWarning } from "./worker.findings"

// One forge.json, read the way opencode reads its own config (JSONC: comments and trailing commas allowed), and
// fail-soft field by field: a syntax error empties the file's layer with one finding at the error's line:column; a
// broken entry is skipped alone; a mistyped optional field is ignored with a warning and counts as absent. The tree
// (not the plain value) is walked so that keys keep their written order and a key written twice is noticed.

/** Forge adds this to every id itself; an id written with it would double up (forge-forge-coder). */
export const WORKER_ID_PREFIX = "forge-"

/**
 * A pool namespace, the infix of `forge-<ns>-<id>`: 1 to 24 of [a-z0-9-], not starting or ending with '-'.
 * Directory names are sanitized into this form (see worker.pools.ts).
 */
export const poolNameSchema = z.string().regex(/^(?=.{1,24}$)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/)

/**
 * An agent id after the prefix is stripped, kept as written (opencode agent names are case-sensitive keys): a letter
 * or digit, then letters, digits, '_' or '-'. No '/', '.', spaces or other marks: an agent name lives in the task
 * tool's vocabulary, in config keys and in log lines, and opencode derives names from file paths where '/' nests.
 */
export const workerIdSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/)

const permissionActionSchema = z.enum(["allow", "ask", "deny"])
/** opencode's permission value: an action, or (for pattern-aware tools like bash) an object of pattern → action. */
const permissionRuleSchema = z.union([permissionActionSchema, z.record(z.string(), permissionActionSchema)])

export type WorkerPermissionRule = z.infer<typeof permissionRuleSchema>
/** Tool key → rule, as the entry wrote it; the materializer lays it over the shape's default (and denies task). */
export type WorkerPermission = Record<string, WorkerPermissionRule>
export type WorkerShape = "readonly" | "write"

interface WorkerEntryFields {
  /** The id as it becomes part of the agent name (prefix stripped). */
  id: string
  shape: WorkerShape
  prompt?: string
  description?: string
  permission?: WorkerPermission
}

/** A worker bound to one brain and one depth at materialization. */
export interface PinnedWorkerEntry extends WorkerEntryFields {
  kind: "pinned"
  /** "provider/model", verbatim. */
  model: string
  /** A canonical word (none, low, medium, high, max) or a native level name, verbatim. */
  thoughtLevel: string
}

/** A worker with no model: it inherits the parent session's model at dispatch. */
export interface AutoWorkerEntry extends WorkerEntryFields {
  kind: "auto"
}

export type WorkerEntry = PinnedWorkerEntry | AutoWorkerEntry

export interface ParsedForgeJson {
  /** The file's namespace for its pool, when it names a valid one. */
  pool?: string
  /** The entries that apply, in written order. */
  agents: WorkerEntry[]
  findings: WorkerFinding[]
}

const nonBlank = z.string().refine((text) => text.trim() !== "")

/** The plain optional fields: the schema a value must pass, and what to say it should have been. */
const entryFields = {
  model: { schema: z.string().regex(/^[^/\s]+\/\S+$/), want: 'a "provider/model" string' },
  thoughtLevel: { schema: z.string().regex(/^\S+$/), want: "one word (none, low, medium, high, max, or a level name of the model)" },
  prompt: { schema: nonBlank, want: "a non-empty string" },
  description: { schema: nonBlank, want: "a non-empty string" },
  shape: { schema: z.enum(["readonly", "write"]), want: '"readonly" or "write"' },
} as const
type EntryFieldName = keyof typeof entryFields
type EntryDraft = { [K in EntryFieldName]?: z.infer<(typeof entryFields)[K]["schema"]> }

const TOP_LEVEL_KEYS = new Set(["pool", "agents", "$schema"])

export function parseForgeJson(text: string, source: string): ParsedForgeJson {
  // Editors on some systems write a byte-order mark; it is no syntax error, and columns count without it.
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text
  const errors: ParseError[] = []
  const root = parseTree(body, errors, { allowTrailingComma: true, disallowComments: false })
  const first = errors[0]
  if (first) {
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : ""
    const what = `syntax error at ${lineColumn(body, first.offset)}: ${printParseErrorCode(first.error)}${more}; the file is ignored`
    return { agents: [], findings: [workerError(source, what)] }
  }
  if (root?.type !== "object") return { agents: [], findings: [workerError(source, `the top level must be an object; the file is ignored`)] }

  const findings: WorkerFinding[] = []
  const top = new Map<string, Node>()
  for (const member of members(root)) {
    if (top.has(member.key)) findings.push(workerWarning(source, `"${member.key}" is written twice; the last one applies`))
    top.set(member.key, member.value)
  }
  for (const key of top.keys()) if (!TOP_LEVEL_KEYS.has(key)) findings.push(workerWarning(source, `unknown key "${key}" ignored (known: pool, agents)`))

  const pool = readPool(top.get("pool"), source, findings)
  const agentsNode = top.get("agents")
  let agents: WorkerEntry[] = []
  if (agentsNode?.type === "object") agents = readAgents(agentsNode, body, source, findings)
  else if (agentsNode)
    findings.push(workerError(source, `"agents" must be an object of id → entry; got ${describe(getNodeValue(agentsNode))}; no agents apply`))
  return { ...(pool === undefined ? {} : { pool }), agents, findings }
}

function readPool(node: Node | undefined, source: string, findings: WorkerFinding[]): string | undefined {
  if (!node) return undefined
  const value: unknown = getNodeValue(node)
  const parsed = poolNameSchema.safeParse(value)
  if (parsed.success) return parsed.data
  findings.push(
    workerWarning(source, `"pool" must be 1-24 of a-z, 0-9 and '-' (not at either end); got ${describe(value)}; the directory name is used instead`),
  )
  return undefined
}

function readAgents(node: Node, text: string, source: string, findings: WorkerFinding[]): WorkerEntry[] {
  const written = members(node).map((member) => ({ ...member, id: stripPrefix(member.key) }))
  // A JSON object keeps the last of two equal keys; "coder" and "forge-coder" are the same id once stripped. Either
  // way the last definition applies, as in opencode's own config, and the others are named as errors.
  const lastIndex = new Map(written.map((member, index) => [member.id, index]))
  const agents: WorkerEntry[] = []
  written.forEach((member, index) => {
    const label = `agent "${member.key}"`
    const last = lastIndex.get(member.id) ?? index
    if (last !== index) {
      const where = `line ${lineOf(text, member.offset)}`
      const winner = `line ${lineOf(text, written[last]?.offset ?? 0)}`
      findings.push(workerError(source, `${label} (${where}) is defined again at ${winner} as id "${member.id}"; only the last definition applies`))
      return
    }
    if (member.id !== member.key)
      findings.push(
        workerWarning(
          source,
          `${label}: Forge adds the "${WORKER_ID_PREFIX}" prefix itself, so the id is read as "${member.id}"; rename the entry to silence this`,
        ),
      )
    if (!workerIdSchema.safeParse(member.id).success) {
      findings.push(workerError(source, `${label}: an id must start with a letter or digit and hold only letters, digits, '_' and '-'; skipped`))
      return
    }
    const entry = readEntry(member.id, member.value, `${label}:`, source, findings)
    if (entry) agents.push(entry)
  })
  return agents
}

function readEntry(id: string, node: Node, label: string, source: string, findings: WorkerFinding[]): WorkerEntry | undefined {
  if (node.type !== "object") {
    findings.push(workerError(source, `${label} an entry must be an object; got ${describe(getNodeValue(node))}; skipped`))
    return undefined
  }
  const draft: EntryDraft = {}
  const invalid = new Set<string>()
  let permission: WorkerPermission | undefined
  const seen = new Set<string>()
  for (const { key, value: valueNode } of members(node)) {
    const value: unknown = getNodeValue(valueNode)
    if (seen.has(key)) {
      findings.push(workerWarning(source, `${label} "${key}" is written twice; the last one applies`))
      delete draft[key as EntryFieldName]
      invalid.delete(key)
      if (key === "permission") permission = undefined
    }
    seen.add(key)
    if (Object.hasOwn(entryFields, key)) {
      const field = entryFields[key as EntryFieldName]
      const parsed = field.schema.safeParse(value)
      if (parsed.success) Object.assign(draft, { [key]: parsed.data })
      else {
        invalid.add(key)
        findings.push(workerWarning(source, `${label} "${key}" must be ${field.want}; got ${describe(value)}; ignored`))
      }
    } else if (key === "permission") permission = readPermission(value, label, source, findings)
    else if (key === "depths") findings.push(workerWarning(source, `${label} "depths" is deprecated and ignored: pin one thoughtLevel instead`))
    else findings.push(workerWarning(source, `${label} unknown field "${key}" ignored`))
  }

  const common = {
    id,
    shape: draft.shape ?? "readonly",
    ...(draft.prompt === undefined ? {} : { prompt: draft.prompt }),
    ...(draft.description === undefined ? {} : { description: draft.description }),
    ...(permission === undefined ? {} : { permission }),
  }
  const { model, thoughtLevel } = draft
  if (model !== undefined && thoughtLevel !== undefined) return { ...common, kind: "pinned", model, thoughtLevel }
  if (model === undefined && thoughtLevel === undefined) return { ...common, kind: "auto" }
  // The atomic pair: a brain without a depth (or a depth without a brain) is a half-written pinned worker.
  const [have, lacking] = model === undefined ? ["thoughtLevel", "model"] : ["model", "thoughtLevel"]
  const state = invalid.has(lacking) ? "is invalid" : "is missing"
  findings.push(
    workerError(
      source,
      `${label} ${have} is set but ${lacking} ${state}; model and thoughtLevel go together, so the entry is skipped ` +
        `(set both for a pinned worker, or neither for an Auto worker)`,
    ),
  )
  return undefined
}

function readPermission(value: unknown, label: string, source: string, findings: WorkerFinding[]): WorkerPermission | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    findings.push(workerWarning(source, `${label} "permission" must be an object of tool → "allow" | "ask" | "deny"; got ${describe(value)}; ignored`))
    return undefined
  }
  const permission: WorkerPermission = {}
  for (const [tool, rule] of Object.entries(value)) {
    const parsed = permissionRuleSchema.safeParse(rule)
    if (parsed.success) permission[tool] = parsed.data
    else
      findings.push(
        workerWarning(
          source,
          `${label} permission "${tool}" must be "allow", "ask", "deny" or an object of pattern → one of them; got ${describe(rule)}; ignored`,
        ),
      )
  }
  return Object.keys(permission).length > 0 ? permission : undefined
}

/** An object node's members in written order, duplicates included. */
function members(node: Node): { key: string; value: Node; offset: number }[] {
  const out: { key: string; value: Node; offset: number }[] = []
  for (const property of node.children ?? []) {
    const [keyNode, valueNode] = property.children ?? []
    if (keyNode && valueNode && typeof keyNode.value === "string") out.push({ key: keyNode.value, value: valueNode, offset: property.offset })
  }
  return out
}

function stripPrefix(key: string): string {
  let id = key
  while (id.startsWith(WORKER_ID_PREFIX)) id = id.slice(WORKER_ID_PREFIX.length)
  return id
}

/** 1-based "line:column" of an offset, as editors show it. */
function lineColumn(text: string, offset: number): string {
  return `${lineOf(text, offset)}:${offset - text.slice(0, offset).lastIndexOf("\n")}`
}

function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split("\n").length
}

function describe(value: unknown): string {
  const text = value === undefined ? "nothing" : JSON.stringify(value)
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}
