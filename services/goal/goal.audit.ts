import { AUDIT_SUMMARY_MAX, findingPlace, openAuditBugs } from "../../machines/goal/goal.audit"
import type { GoalEvent, GoalMachine } from "../../machines/goal/goal.machine"
import { explainGoalRefusal } from "../../machines/goal/goal.refusals"
import type { Lifecycle } from "../lifecycle/lifecycle"
import type { Clock, Logger } from "../lifecycle/lifecycle.ports"
import { type ReviewDeleteRequest, type ReviewReadRequest, type ReviewScope, type ReviewWriteRequest, normalFile } from "../review/review.scope"
import { auditBrief } from "./goal.audit.brief"
import { findingText, findingsText } from "./goal.audit.text"
import type { GoalSnapshot } from "./goal.lifecycle"
import type { GoalAuditSandbox, GoalAuditSessions, GoalAuditWorkspace } from "./goal.ports"

// A goal's audit, run by the host inside goal_complete once the machine took the completion into `auditing`: a fresh
// auditor session, confined read-only, briefed with the contract and the diff since the goal was armed; its findings go
// through the review tools into the goal's machine; its turn's end (or its failure) is the machine's next step. Every
// decision is the machine's (the review gate, the write-ban, clean or dirty): this runs the effects around it.

/** How long an auditor's turn may run before the audit fails (the goal_complete call waits for it). */
export const GOAL_AUDIT_TIMEOUT_MS = 15 * 60_000

export interface GoalAuditDeps {
  lifecycle: Lifecycle<GoalMachine>
  sessions: GoalAuditSessions
  workspace: GoalAuditWorkspace
  sandbox: GoalAuditSandbox
  clock: Clock
  log: Logger
  timeoutMs?: number
}

export class GoalAudits implements ReviewScope {
  constructor(private readonly deps: GoalAuditDeps) {}

  /** The workspace now, where an armed goal's audit diff starts; null outside git or when git cannot tell. */
  async baseline(): Promise<string | null> {
    try {
      return await this.deps.workspace.snapshot()
    } catch (error) {
      this.deps.log.warn(`goal audit: the workspace could not be snapshotted, so the audit's diff has no base: ${String(error)}`)
      return null
    }
  }

  /**
   * The audit of a goal the completion took into `auditing`, run to its end: the goal's snapshot after it (completing
   * after a clean audit, working after a dirty or failed one). A goal that left the audit meanwhile (a pause) refuses.
   */
  async run(goal: GoalSnapshot, signal?: AbortSignal): Promise<GoalSnapshot> {
    const { goalPath } = goal.context
    const failed = (error: string) => this.step(goalPath, { type: "goal.audit.failed", error, now: this.deps.clock.now() })
    const problem = await this.deps.sandbox.problem()
    if (problem !== null)
      return failed(
        `the auditor's shells cannot be confined here: ${problem}. Install bubblewrap (apt install bubblewrap), or set the plugin option loop.sandbox to "off" to let auditors run unconfined`,
      )
    const diff = await this.diffOf(goal)
    let session: string
    try {
      session = await this.deps.sessions.open(`goal audit ${(goal.context.audit?.rounds ?? 0) + 1}: ${goal.context.contract.objective.split("\n", 1)[0]}`)
    } catch (error) {
      return failed(`the auditor session could not be opened: ${messageOf(error)}`)
    }
    let opened: GoalSnapshot
    try {
      opened = await this.step(goalPath, { type: "goal.audit.opened", session })
    } catch (error) {
      await this.deps.sessions.stop(session).catch(() => undefined)
      throw error
    }
    let summary: string
    try {
      // Waited on before the brief goes out: a quick auditor's idle is never missed.
      const ended = this.deps.sessions.ended(session, { timeoutMs: this.deps.timeoutMs ?? GOAL_AUDIT_TIMEOUT_MS, signal })
      ended.catch(() => undefined)
      await this.deps.sessions.send(session, auditBrief({ context: opened.context, diff }))
      summary = await ended
    } catch (error) {
      await this.deps.sessions.stop(session).catch(() => undefined)
      return failed(`the auditor session ${session} did not finish: ${messageOf(error)}`)
    }
    const words = summary.trim().slice(0, AUDIT_SUMMARY_MAX) || "(the auditor said nothing)"
    return this.step(goalPath, { type: "goal.audit.done", session, summary: words, now: this.deps.clock.now() })
  }

  /** The goal whose auditor `sessionId` is (or was), as this process holds it. */
  goalOf(sessionId: string): GoalSnapshot | undefined {
    for (const [, goal] of this.deps.lifecycle.instances()) if (goal.context.audit?.sessions.includes(sessionId)) return goal
    return undefined
  }

  /** Whether `sessionId` is a goal's auditor session: its shells run read-only in the sandbox. */
  isAuditor(sessionId: string): boolean {
    return this.goalOf(sessionId) !== undefined
  }

  /** The machine's write-ban on an auditor session's tool call: null when it may call it, or the refusal. */
  toolRefusal(sessionId: string, tool: string): string | null {
    const goal = this.goalOf(sessionId)
    if (goal === undefined) return null
    const event: GoalEvent = { type: "goal.audit.tool", session: sessionId, tool }
    return goal.can(event) ? null : explainGoalRefusal(goal, event)
  }

  async owns(sessionId: string): Promise<boolean> {
    return this.isAuditor(sessionId)
  }

  async write(sessionId: string, request: ReviewWriteRequest): Promise<string> {
    const goal = this.auditedBy(sessionId, "review_write")
    const finding = {
      file: normalFile(request.file),
      line: request.line,
      severity: request.severity,
      description: request.description.trim(),
      scenario: request.scenario?.trim() || null,
    }
    const after = await this.step(goal.context.goalPath, { type: "goal.review.write", session: sessionId, finding })
    return `Finding recorded for the audit of goal ${goal.context.goalPath}: ${findingText(finding)}. Bugs open: ${bugsOf(after)}.`
  }

  async delete(sessionId: string, request: ReviewDeleteRequest): Promise<string> {
    const goal = this.auditedBy(sessionId, "review_delete")
    const place = { file: normalFile(request.file), line: request.line }
    const after = await this.step(goal.context.goalPath, { type: "goal.review.delete", session: sessionId, ...place })
    return `Finding at ${findingPlace(place)} deleted from the audit of goal ${goal.context.goalPath}. Bugs open: ${bugsOf(after)}.`
  }

  /** The audit's open findings, as JSON; filtered by file and text as review_read asks. */
  async read(sessionId: string, request: ReviewReadRequest): Promise<string> {
    const goal = this.auditedBy(sessionId, "review_read")
    const file = request.file === undefined ? undefined : normalFile(request.file)
    const pattern = request.pattern?.toLowerCase()
    const findings = (goal.context.audit?.findings ?? []).filter(
      (f) => (file === undefined || f.file === file) && (pattern === undefined || `${f.description}\n${f.scenario ?? ""}`.toLowerCase().includes(pattern)),
    )
    return JSON.stringify({ goal: goal.context.goalPath, scope: "the goal's audit", findings }, null, 2)
  }

  /** A goal_complete refusal after an audit that did not come out clean: its findings, or why it failed. */
  static refusalText(goal: GoalSnapshot): string {
    const audit = goal.context.audit
    const last = audit?.last ?? null
    const again = "Call goal_complete again: the host re-runs every check and a new audit starts, which deletes the findings it finds fixed."
    if (audit === null || last === null) return `completion gate: goal ${goal.context.goalPath} is not complete: its audit did not run. ${again}`
    if (last.outcome === "failed") return `completion gate: the audit of goal ${goal.context.goalPath} could not finish: ${last.summary}. ${again}`
    const bugs = openAuditBugs(audit).length
    return (
      `completion gate: the audit of goal ${goal.context.goalPath} left ${bugs} bug${bugs === 1 ? "" : "s"} open, so it is not complete. Fix ${bugs === 1 ? "it" : "them"}, then ${again[0]?.toLowerCase()}${again.slice(1)}\n\n` +
      `Open findings:\n${findingsText(audit.findings)}\n\nThe auditor's summary: ${last.summary}`
    )
  }

  private auditedBy(sessionId: string, tool: string): GoalSnapshot {
    const goal = this.goalOf(sessionId)
    if (goal === undefined) throw new Error(`${tool}: this session audits no goal.`)
    return goal
  }

  private async diffOf(goal: GoalSnapshot): Promise<string> {
    const base = goal.context.audit?.base ?? null
    if (base === null)
      return "(no diff: the workspace is not a git repository, or it could not be snapshotted when the goal was armed; read the files the objective names)"
    try {
      return await this.deps.workspace.diff(base)
    } catch (error) {
      return `(no diff: ${messageOf(error)}; read the files the objective names)`
    }
  }

  /** One step of the goal; a refusal is the machine's (GateRefusal with its words). */
  private step(goalPath: string, event: GoalEvent): Promise<GoalSnapshot> {
    return this.deps.lifecycle.dispatch(goalPath, event)
  }
}

function bugsOf(goal: GoalSnapshot): number {
  return goal.context.audit === null ? 0 : openAuditBugs(goal.context.audit).length
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
