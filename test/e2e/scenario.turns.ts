// What the runner does around the turns: the progress line of a model request, the harness's own checks, which turn
// and server (or workspace) asked for a tool call, and the turns grouped as they run (a `wait: false` turn with the
// turns after it).
import type { Check } from "./expectations"
import { CLOSING_TEXT, EXHAUSTED_TEXT, SUMMARY_TEXT, type FakeLlm, type ModelRequestRecord } from "./fake-llm"
import { preview, type NumberedTurn, type ToolResult } from "./opencode.driver"
import type { Turn } from "./scenario.schema"
import { FAKE_MODEL_ID } from "./sandbox"

/** `tag`: the scenario runs several servers (or workspaces), so each line names the one that asked. */
export function describeRequest(r: ModelRequestRecord, tag: "server" | "workspace" | undefined): string {
  // A model other than the fake's default (a worker pinned to another one) is named on the line.
  const origin = tag === undefined ? "" : ` [${tag} ${tag === "server" ? r.server : r.workspace}]`
  // A session the plugin opened (a loop's pass, a subagent) is named; the scenario's own (1) is not.
  const session = r.session > 1 ? ` {session ${r.session}}` : ""
  const suffix = `${r.model === FAKE_MODEL_ID ? "" : ` (${r.model})`}${origin}${session}`
  if (r.kind === "title") return `model (title request)${suffix} → text`
  if (r.kind === "compaction") return `model (compaction request)${suffix} → text ${JSON.stringify(SUMMARY_TEXT)}`
  if (r.kind === "closing") return `model (closing request of a concurrent turn)${suffix} → text ${JSON.stringify(CLOSING_TEXT)}`
  if ("tools" in r.reply) return `model #${r.index}${suffix} → ${r.reply.tools.map((t) => `tool ${t.tool} ${preview(t.args, 120)}`).join(", ")}`
  return `model #${r.index}${suffix} → ${r.kind === "exhausted" ? "script exhausted, answered" : "text"} ${JSON.stringify(preview(r.reply.text, 100))}`
}

export function harnessChecks(fake: FakeLlm, logs: string): Check[] {
  const checks: Check[] = []
  const exhausted = fake.requests.find((r) => r.kind === "exhausted")
  checks.push({
    label: "model script long enough",
    ok: !exhausted,
    detail: exhausted
      ? `model script exhausted at request ${exhausted.index} (turn ${exhausted.turn}); the fake answered ${JSON.stringify(EXHAUSTED_TEXT)}`
      : undefined,
  })
  const left = fake.remaining()
  checks.push({ label: "model script fully used", ok: left === 0, detail: `${left} step(s) never requested` })
  const loadError = /^.*failed to load plugin.*$/m.exec(logs)
  checks.push({ label: "plugin loaded", ok: !loadError, detail: preview(loadError?.[0] ?? "", 400) })
  return checks
}

/**
 * Each tool call's turn and server, from the model request that asked for it (its call id): turns that ran at the
 * same time are collected together, and only the fake knows which server asked. Unknown ids keep the driver's.
 */
export function attribute(results: readonly ToolResult[], requests: readonly ModelRequestRecord[]): ToolResult[] {
  const asked = new Map<string, ModelRequestRecord>()
  for (const r of requests) for (const id of r.callIds) asked.set(id, r)
  return results.map((t) => {
    const r = t.callId === undefined ? undefined : asked.get(t.callId)
    return r ? { ...t, turn: r.turn, server: r.server } : t
  })
}

/** The turns in order, a `wait: false` turn grouped with the turns after it up to the first one that waits. */
export function turnGroups(turns: readonly Turn[]): NumberedTurn[][] {
  const groups: NumberedTurn[][] = []
  let open: NumberedTurn[] = []
  for (const [i, turn] of turns.entries()) {
    open.push({ turn, n: i + 1 })
    if (turn.wait !== false) {
      groups.push(open)
      open = []
    }
  }
  if (open.length > 0) groups.push(open)
  return groups
}

/** The check that every turn of a concurrent group asked the model, from the channels the fake saw missing. */
export function groupCheck(group: readonly NumberedTurn[], missing: readonly number[], channel: "server" | "workspace"): Check {
  const label = `turns ${group.map(({ n }) => n).join(", ")}: every concurrent turn asked the model`
  return missing.length === 0
    ? { label, ok: true }
    : { label, ok: false, detail: `the first model request of ${channel} ${missing.join(", ")} never came; the others were held until the wait gave up` }
}
