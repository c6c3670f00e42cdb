import { CROSS_SECTION, type FindingScope, type LoopOpenFinding, isInScope, openBugs } from "../../machines/loop/loop.findings"
import { findingScopeOf } from "../../machines/loop/loop.machine"
import type { Clock } from "../lifecycle/lifecycle.ports"
import type { LoopSnapshot } from "./loop.lifecycle"
import type { LoopReviews, StoredFinding } from "./loop.ports"
import type { LoopService } from "./loop.service"
import { type ReviewDeleteRequest, type ReviewReadRequest, type ReviewScope, type ReviewWriteRequest, normalFile } from "../review/review.scope"

// review_write, review_read and review_delete. In a loop's session a finding is the loop's and the audit's section's
// (the loop machine's review gate decides who may write or delete one: the current auditor, before its handoff);
// anywhere else it is the workspace's own review (/review), kept in the same table outside every loop.

const DEFAULT_AUDITS_PAGE = 20

export class LoopReviewService {
  constructor(
    private readonly loops: LoopService,
    private readonly reviews: LoopReviews,
    private readonly clock: Clock,
    /** Other lifecycles' findings (a goal's audit): a session one of them owns reads and writes there. */
    private readonly scopes: readonly ReviewScope[] = [],
  ) {}

  async write(sessionId: string, request: ReviewWriteRequest): Promise<string> {
    const scope = await this.scopeOf(sessionId)
    if (scope !== undefined) return scope.write(sessionId, request)
    const loop = await this.loopOf(sessionId)
    const base = { file: normalFile(request.file), line: request.line, severity: request.severity, description: request.description.trim() }
    const finding: LoopOpenFinding = { ...base, section: CROSS_SECTION, scenario: request.scenario?.trim() || null }
    if (loop === undefined) {
      await this.reviews.add(finding, sessionId, this.clock.now())
      return `Finding recorded in the workspace's review: ${findingLine(finding)}.`
    }
    const section = sectionOf(loop, request, "review_write")
    const after = await this.loops.lifecycle.dispatch(loop.context.loopName, {
      type: "loop.review.write",
      session: sessionId,
      finding: { ...finding, section },
    })
    const open = openBugs(after.context.findings, findingScopeOf(after.context))
    return `Finding recorded for loop ${loop.context.loopName}, ${sectionText(section)}: ${findingLine(finding)}. Bugs open in this audit's scope: ${open}.`
  }

  async delete(sessionId: string, request: ReviewDeleteRequest): Promise<string> {
    const scope = await this.scopeOf(sessionId)
    if (scope !== undefined) return scope.delete(sessionId, request)
    const loop = await this.loopOf(sessionId)
    const place = { file: normalFile(request.file), line: request.line }
    if (loop === undefined) {
      if (!(await this.reviews.remove(place)))
        throw new Error(`review_delete: the workspace's review has no open finding at ${place.file}:${place.line} (review_read lists them).`)
      return `Finding at ${place.file}:${place.line} deleted from the workspace's review.`
    }
    const section = sectionOf(loop, request, "review_delete")
    const after = await this.loops.lifecycle.dispatch(loop.context.loopName, { type: "loop.review.delete", session: sessionId, section, ...place })
    return `Finding at ${place.file}:${place.line} of ${sectionText(section)} deleted. Bugs open in this audit's scope: ${openBugs(after.context.findings, findingScopeOf(after.context))}.`
  }

  /** The open findings in the caller's scope (or as asked), or a page of a loop's audit history; JSON. */
  async read(sessionId: string, request: ReviewReadRequest): Promise<string> {
    const other = request.loopName === undefined ? await this.scopeOf(sessionId) : undefined
    if (other !== undefined) return other.read(sessionId, request)
    const own = await this.loopOf(sessionId)
    const loopName = request.loopName ?? own?.context.loopName ?? ""
    if (request.loopName !== undefined && request.loopName !== "" && this.loops.lifecycle.snapshot(request.loopName) === undefined)
      throw new Error(`review_read: no loop named ${request.loopName} in this workspace (loop_status lists them).`)
    if (request.attempts === true) return this.attempts(loopName, request)
    // A loop's own pass reads its audit's scope; everyone else reads the whole loop.
    const scope = own !== undefined && own.context.loopName === loopName && request.allSections !== true ? findingScopeOf(own.context) : undefined
    const pattern = request.pattern?.toLowerCase()
    const file = request.file === undefined ? undefined : normalFile(request.file)
    const findings = (await this.reviews.findings(loopName)).filter(
      (f) =>
        (scope === undefined || isInScope(f, scope)) &&
        (request.crossSection !== true || f.section === CROSS_SECTION) &&
        (file === undefined || f.file === file) &&
        (pattern === undefined || `${f.description}\n${f.scenario ?? ""}`.toLowerCase().includes(pattern)),
    )
    return JSON.stringify(
      {
        loop: loopName === "" ? null : loopName,
        scope: loopName === "" ? "the workspace's review" : scope === undefined ? "every section" : scopeText(scope),
        findings: findings.map(findingJson),
      },
      null,
      2,
    )
  }

  private async attempts(loopName: string, request: ReviewReadRequest): Promise<string> {
    if (loopName === "") throw new Error("review_read: attempts is a loop's audit history; name the loop (loopName), or call it from one of its passes.")
    const limit = request.limit ?? DEFAULT_AUDITS_PAGE
    const page = await this.reviews.audits(loopName, limit, request.beforeId)
    const last = page.at(-1)
    return JSON.stringify(
      {
        loop: loopName,
        attempts: page.map((a) => ({ ...a, section: a.section === CROSS_SECTION ? "final audit" : a.section + 1, at: new Date(a.at).toISOString() })),
        nextBeforeId: page.length === limit && last !== undefined ? last.id : null,
      },
      null,
      2,
    )
  }

  private async scopeOf(sessionId: string): Promise<ReviewScope | undefined> {
    for (const scope of this.scopes) if (await scope.owns(sessionId)) return scope
    return undefined
  }

  private async loopOf(sessionId: string): Promise<LoopSnapshot | undefined> {
    await this.loops.refresh()
    return this.loops.loopOf(sessionId)
  }
}

/** The section a loop's finding is written to or deleted from: as given, across sections, or the audit's own. */
function sectionOf(loop: LoopSnapshot, request: { sectionIndex?: number; crossSection?: boolean }, tool: string): number {
  if (request.crossSection === true) {
    if (request.sectionIndex !== undefined) throw new Error(`${tool}: give sectionIndex or crossSection, not both.`)
    return CROSS_SECTION
  }
  const { sections } = loop.context
  if (request.sectionIndex !== undefined) {
    if (request.sectionIndex >= sections.length)
      throw new Error(`${tool}: sectionIndex ${request.sectionIndex} is past the plan's ${sections.length} sections (0-based).`)
    return request.sectionIndex
  }
  const scope = findingScopeOf(loop.context)
  return scope.final ? CROSS_SECTION : scope.section
}

function scopeText(scope: FindingScope): string {
  return scope.final ? "every section (the final audit)" : `section ${scope.section + 1} and the ones before it, with the cross-section findings`
}

function sectionText(section: number): string {
  return section === CROSS_SECTION ? "across sections" : `section ${section + 1}`
}

function findingLine(f: Pick<LoopOpenFinding, "severity" | "file" | "line" | "description">): string {
  return `${f.severity} ${f.file}:${f.line} — ${f.description}`
}

function findingJson(f: StoredFinding) {
  return {
    section: f.section === CROSS_SECTION ? "cross-section" : f.section,
    file: f.file,
    line: f.line,
    severity: f.severity,
    description: f.description,
    scenario: f.scenario,
    session: f.sessionId,
    createdAt: new Date(f.createdAt).toISOString(),
  }
}
