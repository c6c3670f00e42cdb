// Evaluates a scenario's `expect` block against what the run left behind: project files, tool results, the
// lifecycle store and the logs. Every expectation becomes one named check with a detail that says what was
// found instead, so a failing scenario reads as a diagnosis.
import fs from "node:fs"
import path from "node:path"
import { parse as parseYaml } from "yaml"
import type { ModelRequestRecord } from "./fake-llm"
import type { ForgeDbSnapshot, TransitionRow } from "./forge-db"
import { findFiles, globMatches } from "./glob"
import { describeWanted, matchActor, stateMatches } from "./lifecycle.match"
import { preview, type ToolResult, type UserMessage } from "./opencode.driver"
import { textProblems } from "./text-match"
import type {
  Expectations,
  FileExpectation,
  CompactionRequestExpectation,
  ModelRequestExpectation,
  ModelRequestSelector,
  ToolResultExpectation,
  UserMessageExpectation,
  WatchdogLedgerExpectation,
} from "./scenario.schema"
import { formatScreen } from "./tui-mode.screen"

export interface Check {
  label: string
  ok: boolean
  /** What was found, when the check failed. */
  detail?: string
}

export interface Evidence {
  project: string
  toolResults: readonly ToolResult[]
  db: ForgeDbSnapshot
  /** opencode log files and stderr, concatenated. */
  logs: string
  modelRequests: readonly ModelRequestRecord[]
  /** Serve and TUI mode: the session's user messages. */
  userMessages?: readonly UserMessage[]
  /** TUI mode: the screen after the last turn. */
  screen?: string
}

/** YAML frontmatter between leading `---` lines, or undefined when there is none or it does not parse. */
export function readFrontmatter(text: string): Record<string, unknown> | undefined {
  const m = /^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)/.exec(text)
  if (!m) return undefined
  try {
    const value: unknown = parseYaml(m[1] ?? "")
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

function checkFile(project: string, f: FileExpectation, i: number): Check {
  const label = `files[${i}] ${f.path}${f.exists ? "" : " absent"}`
  const found = findFiles(project, f.path)
  if (!f.exists) return { label, ok: found.length === 0, detail: `found ${found.join(", ")}` }
  if (found.length === 0) return { label, ok: false, detail: "no such file" }
  if (f.count !== undefined && found.length !== f.count)
    return { label, ok: false, detail: `expected ${f.count} file(s), found ${found.length}: ${found.join(", ")}` }
  const problems: string[] = []
  for (const rel of found) {
    const text = fs.readFileSync(path.join(project, rel), "utf8")
    const where = found.length > 1 || rel !== f.path ? `${rel}: ` : ""
    for (const p of textProblems(text, f)) problems.push(where + p)
    if (f.frontmatter) {
      const fm = readFrontmatter(text)
      if (!fm) problems.push(`${where}has no YAML frontmatter`)
      else
        for (const [key, want] of Object.entries(f.frontmatter))
          if (fm[key] !== want) problems.push(`${where}frontmatter ${key} is ${JSON.stringify(fm[key])}, expected ${JSON.stringify(want)}`)
    }
  }
  return { label, ok: problems.length === 0, detail: problems.join("; ") }
}

/** True when every key of `want` is in `got` with a deep-equal value (objects compared recursively, arrays exactly). */
export function isSubset(want: unknown, got: unknown): boolean {
  if (want && typeof want === "object" && !Array.isArray(want)) {
    if (!got || typeof got !== "object" || Array.isArray(got)) return false
    return Object.entries(want).every(([k, v]) => isSubset(v, (got as Record<string, unknown>)[k]))
  }
  if (Array.isArray(want)) return Array.isArray(got) && want.length === got.length && want.every((v, i) => isSubset(v, got[i]))
  return Object.is(want, got)
}

function checkToolResult(results: readonly ToolResult[], e: ToolResultExpectation, i: number): Check {
  const calls = results.filter((r) => r.tool === e.tool && (e.server === undefined || r.server === e.server))
  const nth = e.occurrence === "last" ? calls.length : e.occurrence
  const where = e.server === undefined ? "" : ` on server ${e.server}`
  const label = `toolResults[${i}] ${e.tool}${where} #${e.occurrence}${e.status ? ` ${e.status}` : ""}`
  const call = calls[nth - 1]
  if (!call) {
    const seen = results.map((r) => (e.server === undefined ? r.tool : `${r.tool}@${r.server}`)).join(", ") || "none"
    return { label, ok: false, detail: `${e.tool} ran ${calls.length} time(s)${where}; tool calls seen: ${seen}` }
  }
  const problems: string[] = []
  if (e.status && call.status !== e.status) problems.push(`status is ${call.status}`)
  problems.push(...textProblems(call.output, e).map((p) => `output ${p}`))
  if (e.args && !isSubset(e.args, call.input)) problems.push(`args are ${JSON.stringify(call.input)}`)
  if (e.title) problems.push(...textProblems(call.title, e.title).map((p) => `title ${p} (title: ${JSON.stringify(call.title)})`))
  for (const [key, want] of Object.entries(e.metadata ?? {}))
    if (!isSubset(want, call.metadata[key]) || !isSubset(call.metadata[key], want))
      problems.push(`metadata ${key} is ${JSON.stringify(call.metadata[key]) ?? "missing"}, expected ${JSON.stringify(want)}`)
  if (problems.length > 0) problems.push(`output: ${preview(call.output, 300)}`)
  return { label, ok: problems.length === 0, detail: problems.join("; ") }
}

function checkUserMessage(messages: readonly UserMessage[] | undefined, e: UserMessageExpectation, i: number): Check {
  const label = `userMessages[${i}] ${e.message === "last" ? "last user message" : `user message #${e.message}`}`
  if (!messages) return { label, ok: false, detail: "this mode cannot read the session's messages" }
  const message = messages[(e.message === "last" ? messages.length : e.message) - 1]
  if (!message) return { label, ok: false, detail: `the session has ${messages.length} user message(s)` }
  const problems = [
    ...(e.shown ? textProblems(message.shown, e.shown).map((p) => `shown text ${p}`) : []),
    ...(e.hidden ? textProblems(message.hidden, e.hidden).map((p) => `hidden text ${p}`) : []),
  ]
  if (problems.length > 0) problems.push(`shown: ${preview(message.shown, 300)}`, `hidden: ${preview(message.hidden, 300)}`)
  return { label, ok: problems.length === 0, detail: problems.join("; ") }
}

function lineAt(text: string, index: number): string {
  const end = text.indexOf("\n", index)
  return text.slice(text.lastIndexOf("\n", index - 1) + 1, end < 0 ? undefined : end)
}

/** Whether request `r` holds every key of a `where` selector. */
function selectorMatches(r: ModelRequestRecord, w: ModelRequestSelector): boolean {
  return (
    (w.turn === undefined || r.turn === w.turn) &&
    (w.server === undefined || r.server === w.server) &&
    (w.workspace === undefined || r.workspace === w.workspace) &&
    (w.model === undefined || r.model === w.model) &&
    (w.message === undefined || textProblems(r.userText, w.message).length === 0) &&
    (w.system === undefined || textProblems(r.systemText, w.system).length === 0) &&
    (w.history === undefined || textProblems(r.historyText, w.history).length === 0)
  )
}

/** How a `where` selector reads on a label: its keys, text checks shortened. */
function describeSelector(w: ModelRequestSelector): string {
  return Object.entries(w)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k} ${typeof v === "object" ? preview(JSON.stringify(v), 60) : String(v)}`)
    .join(", ")
}

/** The value at a "."-joined key path of a JSON value, or undefined when a key on the way is missing. */
function atPath(value: unknown, keyPath: string): unknown {
  let at = value
  for (const key of keyPath.split(".")) {
    if (!at || typeof at !== "object" || Array.isArray(at) || !Object.hasOwn(at, key)) return undefined
    at = (at as Record<string, unknown>)[key]
  }
  return at
}

/** What of a deep-partial `want` the body lacks, key by key (objects recursively, arrays and values exactly). */
function bodyProblems(want: Record<string, unknown>, got: unknown, prefix = "body"): string[] {
  const problems: string[] = []
  for (const [key, value] of Object.entries(want)) {
    const path = `${prefix}.${key}`
    const here = got && typeof got === "object" && !Array.isArray(got) ? (got as Record<string, unknown>)[key] : undefined
    if (value && typeof value === "object" && !Array.isArray(value) && here && typeof here === "object" && !Array.isArray(here))
      problems.push(...bodyProblems(value as Record<string, unknown>, here, path))
    else if (!isSubset(value, here))
      problems.push(`${path} is ${here === undefined ? "missing" : preview(JSON.stringify(here), 120)}, expected ${JSON.stringify(value)}`)
  }
  return problems
}

function checkModelRequest(requests: readonly ModelRequestRecord[], e: ModelRequestExpectation, i: number): Check {
  // Title requests and the closing requests of concurrent turns (numbered 0) are no scripted request.
  const scripted = requests.filter((q) => q.index > 0)
  let r: ModelRequestRecord | undefined
  let label: string
  if (e.where !== undefined) {
    label = `modelRequests[${i}] request where ${describeSelector(e.where)}`
    const where = e.where
    const found = scripted.filter((q) => selectorMatches(q, where))
    if (found.length !== 1) {
      const origin = (q: ModelRequestRecord) => `${q.server === 1 ? "" : `, server ${q.server}`}${q.workspace === 1 ? "" : `, workspace ${q.workspace}`}`
      const seen = scripted.map((q) => `#${q.index} (turn ${q.turn}${origin(q)}, model ${q.model})`).join(", ")
      const detail =
        found.length === 0
          ? `no request matches; requests: ${seen || "none"}`
          : `${found.length} requests match (${found.map((q) => `#${q.index}`).join(", ")}); narrow "where" down to one`
      return { label, ok: false, detail }
    }
    r = found[0]
    label += ` (#${r?.index})`
  } else {
    label = `modelRequests[${i}] request #${e.request}`
    r = scripted.find((q) => q.index === e.request)
  }
  if (!r) return { label, ok: false, detail: `only ${scripted.length} scripted request(s) arrived` }
  const problems: string[] = []
  if (e.message) problems.push(...textProblems(r.userText, e.message).map((p) => `last user message ${p}`))
  if (e.system) problems.push(...textProblems(r.systemText, e.system).map((p) => `system prompt ${p}`))
  if (e.history) problems.push(...textProblems(r.historyText, e.history).map((p) => `conversation ${p}`))
  for (const t of e.toolsInclude ?? []) if (!r.tools.includes(t)) problems.push(`tool ${t} not offered`)
  for (const t of e.toolsExclude ?? []) if (r.tools.includes(t)) problems.push(`tool ${t} offered`)
  if (e.model !== undefined && r.model !== e.model) problems.push(`model is ${r.model}, expected ${e.model}`)
  if (e.body) problems.push(...bodyProblems(e.body, r.body))
  for (const keyPath of e.bodyExcludes ?? []) {
    const value = atPath(r.body, keyPath)
    if (value !== undefined) problems.push(`body.${keyPath} is present: ${preview(JSON.stringify(value), 120)}`)
  }
  if (problems.length > 0 && e.message) problems.push(`last user message: ${preview(r.userText, 300)}`)
  if (problems.length > 0 && (e.toolsInclude || e.toolsExclude)) problems.push(`tools: ${r.tools.join(", ")}`)
  return { label, ok: problems.length === 0, detail: problems.join("; ") }
}

function checkCompactionRequest(requests: readonly ModelRequestRecord[], e: CompactionRequestExpectation, i: number): Check {
  const label = `compactionRequests[${i}] compaction #${e.request}`
  const compactions = requests.filter((q) => q.kind === "compaction")
  const r = compactions[e.request - 1]
  if (!r) return { label, ok: false, detail: `only ${compactions.length} compaction request(s) arrived` }
  const problems: string[] = []
  if (e.message) problems.push(...textProblems(r.userText, e.message).map((p) => `last user message ${p}`))
  if (e.system) problems.push(...textProblems(r.systemText, e.system).map((p) => `system prompt ${p}`))
  if (e.history) problems.push(...textProblems(r.historyText, e.history).map((p) => `conversation ${p}`))
  if (problems.length > 0 && e.message) problems.push(`last user message: ${preview(r.userText, 300)}`)
  return { label, ok: problems.length === 0, detail: problems.join("; ") }
}

/** The first ledger entry at or after `from` that matches; entries are expected in this order, like transitions. */
function checkLedgerEntry(db: ForgeDbSnapshot, e: WatchdogLedgerExpectation, i: number, from: number): { check: Check; next: number } {
  const label = `watchdogLedger[${i}] ${e.kind}${e.withPids === undefined ? "" : e.withPids ? " with pids" : " without pids"}`
  const matches = (entry: ForgeDbSnapshot["watchdogLedger"][number]) =>
    entry.kind === e.kind &&
    (e.withPids === undefined || entry.pids.length > 0 === e.withPids) &&
    (e.message === undefined || textProblems(entry.message, e.message).length === 0)
  const at = db.watchdogLedger.findIndex((entry, idx) => idx >= from && matches(entry))
  if (at >= 0) return { check: { label, ok: true }, next: at + 1 }
  const seen = db.watchdogLedger.map((entry) => `${entry.kind} [${entry.pids.join(",")}] ${preview(entry.message, 160)}`)
  const detail = !db.exists
    ? "no lifecycle store (database file missing)"
    : `not found${i > 0 ? " after the previous expected entry" : ""}; ledger: ${seen.join(" | ") || "empty"}`
  return { check: { label, ok: false, detail }, next: from }
}

/** A state matches itself and its nested states: "approved" matches "approved.working". */
function describeTransition(t: TransitionRow): string {
  return `${t.machine} ${t.instance}: ${t.from} --${t.event}--> ${t.to}`
}

export function evaluateExpectations(expect: Expectations, ev: Evidence): Check[] {
  const checks: Check[] = []
  for (const [i, f] of expect.files.entries()) checks.push(checkFile(ev.project, f, i))
  for (const [i, e] of expect.toolResults.entries()) checks.push(checkToolResult(ev.toolResults, e, i))
  for (const [tool, count] of Object.entries(expect.toolCounts)) {
    const got = ev.toolResults.filter((r) => r.tool === tool).length
    checks.push({ label: `toolCounts ${tool} = ${count}`, ok: got === count, detail: `ran ${got} time(s)` })
  }
  expect.lifecycles.forEach((e, i) => {
    const { ok, detail } = matchActor(e, ev.db.actors, ev.db.exists)
    checks.push({ label: `lifecycles[${i}] ${describeWanted(e)}`, ok, detail })
  })
  let cursor = 0
  expect.transitions.forEach((e, i) => {
    const label = `transitions[${i}] ${e.machine}${e.instance ? ` ${e.instance}` : ""}: ${e.from ?? "*"} --${e.event ?? "*"}--> ${e.to ?? "*"}`
    const at = ev.db.transitions.findIndex(
      (t, idx) =>
        idx >= cursor &&
        t.machine === e.machine &&
        (e.instance === undefined || globMatches(e.instance, t.instance)) &&
        (e.from === undefined || stateMatches(e.from, t.from)) &&
        (e.event === undefined || t.event === e.event) &&
        (e.to === undefined || stateMatches(e.to, t.to)),
    )
    if (at >= 0) {
      cursor = at + 1
      checks.push({ label, ok: true })
    } else {
      const mine = ev.db.transitions.filter((t) => t.machine === e.machine).map(describeTransition)
      const detail = !ev.db.exists
        ? "no lifecycle store (database file missing)"
        : `not found${i > 0 ? " after the previous expected transition" : ""}; ${e.machine} transitions: ${mine.join(" | ") || "none"}`
      checks.push({ label, ok: false, detail })
    }
  })
  expect.logs.forEach((e, i) => {
    const found = new RegExp(e.matches, "m").exec(ev.logs)
    const label = `logs[${i}] ${e.absent ? "no line matches" : "a line matches"} /${e.matches}/`
    checks.push({ label, ok: e.absent ? !found : Boolean(found), detail: found ? `found: ${preview(lineAt(ev.logs, found.index), 300)}` : "no matching line" })
  })
  for (const [i, e] of expect.modelRequests.entries()) checks.push(checkModelRequest(ev.modelRequests, e, i))
  for (const [i, e] of expect.compactionRequests.entries()) checks.push(checkCompactionRequest(ev.modelRequests, e, i))
  for (const [i, e] of expect.userMessages.entries()) checks.push(checkUserMessage(ev.userMessages, e, i))
  if (expect.screen) {
    const problems = ev.screen === undefined ? ["no screen (the TUI was not running)"] : textProblems(ev.screen, expect.screen)
    const shown = ev.screen === undefined || problems.length === 0 ? "" : `; final screen:\n${formatScreen(ev.screen)}`
    checks.push({ label: "screen after the last turn", ok: problems.length === 0, detail: problems.join("; ") + shown })
  }
  let ledgerCursor = 0
  expect.watchdogLedger.forEach((e, i) => {
    const check = checkLedgerEntry(ev.db, e, i, ledgerCursor)
    ledgerCursor = check.next
    checks.push(check.check)
  })
  return checks
}
