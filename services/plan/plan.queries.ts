import { pendingDocumentNote } from "../../machines/plan/plan.refusals"
import { planStatusOf } from "../../machines/plan/plan.status"
import type { LineSearch } from "../documents/document.ports"
import { searchDocuments } from "../documents/document.search"
import { readWindow } from "../documents/document.window"
import { parsePlanDocument } from "./plan.document"
import type { PlanFiles } from "./plan.ports"
import type { PlanRegistry } from "./plan.registry"
import { statusLabel } from "./plan.label"
import { checkPlanPath } from "./plan.paths"
import type { PlanStatus } from "./plan.types"

export interface PlanSummary {
  planPath: string
  title: string
  status: PlanStatus
  /** What the document says pending the user's dialog (it would pass a gate the user holds); null when nothing is. */
  pending: PlanStatus | null
  session: string | null
  ticked: number
  tasks: number
  criteria: number
  updated: string
}

export interface PlanReadRequest {
  offset?: number
  limit?: number
  pattern?: string
  recent?: boolean
  count?: number
  path?: string
}

const DEFAULT_RECENT = 20
const MAX_RECENT = 100

// Read-only views of the plan folder: plan_read, the /plan listing and /plan resume's choice.

export class PlanQueries {
  /** The last summary read of each plan document, for callers that cannot wait (a tool's line). */
  private readonly lastRead = new Map<string, PlanSummary>()

  constructor(
    private readonly registry: PlanRegistry,
    private readonly files: PlanFiles,
    /** Where a pattern runs: never on the host's thread, always within a time budget. */
    private readonly search: LineSearch,
  ) {}

  async read(sessionId: string, request: PlanReadRequest): Promise<string> {
    if (request.recent) return this.recent(request)
    // The session's live plan may be one another process wrote or ended since this one last looked.
    await this.refresh()
    const planPath = request.path !== undefined ? checkPlanPath(request.path) : this.registry.liveFor(sessionId)
    if (planPath === undefined) {
      throw new Error("no live plan in this session. Pass recent: true to list the workspace's recent plans, or path to read one of them.")
    }
    const text = await this.files.read(planPath)
    if (text === undefined) throw new Error(`plan document ${planPath} does not exist`)
    if (request.pattern !== undefined) {
      const hits = await searchDocuments(this.search, request.pattern, [{ path: planPath, text }])
      return hits.length === 0
        ? `${planPath}: no line matches /${request.pattern}/`
        : [`${planPath}: ${hits.length} matching line(s)`, ...hits.map((h) => `${h.line}: ${h.text}`)].join("\n")
    }
    // The document may say more than the plan is: the answer names the plan's own status first.
    const snapshot = this.registry.snapshot(planPath)
    const note = snapshot === undefined ? "" : pendingDocumentNote(snapshot)
    return `${planPath}\n${note === "" ? "" : `${note.trim()}\n`}${readWindow(text, { offset: request.offset, limit: request.limit, what: "plan" })}`
  }

  /** Every plan of the workspace, newest first; documents that cannot be read or do not parse are listed with the reason. */
  async summaries(): Promise<{ plans: PlanSummary[]; unreadable: { planPath: string; error: string }[] }> {
    await this.refresh()
    const plans: PlanSummary[] = []
    const unreadable: { planPath: string; error: string }[] = []
    for (const planPath of await this.files.list()) {
      try {
        const summary = await this.summarize(planPath)
        if (summary !== undefined) plans.push(summary)
      } catch (error) {
        unreadable.push({ planPath, error: error instanceof Error ? error.message : String(error) })
      }
    }
    plans.sort((a, b) => (a.updated === b.updated ? b.planPath.localeCompare(a.planPath) : b.updated.localeCompare(a.updated)))
    return { plans, unreadable }
  }

  /** One plan as its document and actor stand (undefined when it has no document), for a tool's answer. */
  async summaryOf(planPath: string): Promise<PlanSummary | undefined> {
    return this.summarize(planPath).catch(() => undefined)
  }

  /** The plan as this process last read it (any plan tool's answer, a listing), without reading anything now. */
  lastSummaryOf(planPath: string): PlanSummary | undefined {
    return this.lastRead.get(planPath)
  }

  private async summarize(planPath: string): Promise<PlanSummary | undefined> {
    const text = await this.files.read(planPath)
    if (text === undefined) return undefined
    const doc = parsePlanDocument(text, planPath)
    const live = this.registry.snapshot(planPath)
    const summary: PlanSummary = {
      planPath,
      title: doc.frontmatter.title,
      status: live ? planStatusOf(live.value) : doc.frontmatter.status,
      pending: live?.status === "active" ? (live.context.pendingDocument ?? null) : null,
      session: live?.context.sessionId ?? doc.frontmatter.session ?? null,
      ticked: doc.tasks.filter((t) => t.ticked).length,
      tasks: doc.tasks.length,
      criteria: doc.criteria.length,
      updated: doc.frontmatter.updated,
    }
    this.lastRead.set(planPath, summary)
    return summary
  }

  /** Draft and approved plans, newest first. */
  async unfinished(): Promise<PlanSummary[]> {
    return (await this.overview()).plans
  }

  /** /plan's listing: the unfinished plans, and every document that could not be read, with the reason. */
  async overview(): Promise<{ plans: PlanSummary[]; unreadable: { planPath: string; error: string }[] }> {
    const { plans, unreadable } = await this.summaries()
    return { plans: plans.filter((p) => p.status === "draft" || p.status === "approved"), unreadable }
  }

  /**
   * Brings in what other opencode processes on the workspace did to plans first: a listing takes each live plan's
   * status from its actor, which would otherwise still say "draft" after another process approved it. A database in
   * trouble keeps what this process knows (the plan tools log that; a read-only view has nothing to add).
   */
  private async refresh(): Promise<void> {
    await this.registry.lifecycle.refresh().catch(() => undefined)
  }

  private async recent(request: PlanReadRequest): Promise<string> {
    const count = Math.min(Math.max(1, Math.trunc(request.count ?? DEFAULT_RECENT)), MAX_RECENT)
    const { plans, unreadable } = await this.summaries()
    const chosen = plans.slice(0, count)
    if (request.pattern !== undefined) {
      const documents = []
      for (const plan of chosen) documents.push({ path: plan.planPath, text: (await this.files.read(plan.planPath)) ?? "" })
      const lines = (await searchDocuments(this.search, request.pattern, documents)).map((hit) => `${hit.path}:${hit.line}: ${hit.text}`)
      return lines.length === 0 ? `no line of the ${chosen.length} most recent plan(s) matches /${request.pattern}/` : lines.join("\n")
    }
    if (chosen.length === 0 && unreadable.length === 0) return "no plans in this workspace yet"
    const rows = chosen.map((p) => `- ${p.planPath} [${statusLabel(p)}] ${p.ticked}/${p.tasks} tasks — ${p.title}`)
    const broken = unreadable.map((u) => `- ${u.planPath} [unreadable] ${u.error}`)
    return [`${chosen.length} most recent plan(s):`, ...rows, ...broken].join("\n")
  }
}
