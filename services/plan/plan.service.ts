import type { CriterionCheck } from "../../machines/plan/plan.gates"
import type { PlanEvent } from "../../machines/plan/plan.machine"
import { explainPlanRefusal, pendingDocumentNote } from "../../machines/plan/plan.refusals"
import { planStatusOf } from "../../machines/plan/plan.status"
import { ExclusiveKeyTaken } from "../lifecycle/exclusive.key"
import type { Clock, Confirm, DialogRequest, Logger } from "../lifecycle/lifecycle.ports"
import { approveDialog, closeDialog, discardDialog } from "./plan.dialogs"
import { parsePlanBody, parsePlanDocument, renderPlanDocument } from "./plan.document"
import { normalizeBody, toTaskStates } from "./plan.body"
import { planFileName, planTitleOf, slugify } from "./plan.naming"
import { PLAN_DIR } from "./plan.paths"
import type { PlanFiles } from "./plan.ports"
import type { PlanRegistry, PlanSnapshot } from "./plan.registry"
import { structureReport } from "./plan.report"
import { PlanSync } from "./plan.sync"
import { replaceExact } from "./plan.text"
import type { PlanFrontmatter } from "./plan.types"
import { NoPlanError, SessionHasPlanError } from "./plan.errors"

export interface PlanServiceDeps {
  registry: PlanRegistry
  files: PlanFiles
  clock: Clock
  log: Logger
}

/** A plan tool's answer: what the model reads, plus the plan it touched. */
export interface PlanOutcome {
  planPath: string
  output: string
}

/** Who discards: the user's own command, or the model's tool call with the dialog it may need. */
export type DiscardRequester = { by: "user" } | { by: "model"; confirm: Confirm }

/** How many names plan_write tries when other processes keep taking the one it chose (see write). */
const NAME_ATTEMPTS = 5

// Every plan tool goes through here: the document is read (a hand edit wins), the machine decides, the document is
// written in the same step as the status change, and only then the snapshot and the transition are committed.

export class PlanService {
  readonly sync: PlanSync
  private readonly registry: PlanRegistry
  private readonly files: PlanFiles
  private readonly clock: Clock
  private readonly log: Logger
  /** The last document stamp the gate saw per live plan. */
  private readonly seen = new Map<string, string | undefined>()
  /** The pending document status last named after a tool call, per plan: each change is named once. */
  private readonly named = new Map<string, string>()

  constructor(deps: PlanServiceDeps) {
    this.registry = deps.registry
    this.files = deps.files
    this.clock = deps.clock
    this.log = deps.log
    this.sync = new PlanSync(deps)
  }

  /** The session's live plan, if any. */
  liveFor(sessionId: string): string | undefined {
    return this.registry.liveFor(sessionId)
  }

  /** The session's live plan as the database says now: another opencode process may have written or ended one. */
  async latestLiveFor(sessionId: string): Promise<string | undefined> {
    await this.refresh()
    return this.registry.liveFor(sessionId)
  }

  /** Whether the session holds a draft plan (the machine's write-ban tag), as the database says now. */
  async hasDraft(sessionId: string): Promise<boolean> {
    const planPath = await this.latestLiveFor(sessionId)
    return planPath !== undefined && (this.registry.snapshot(planPath)?.hasTag("write-ban") ?? false)
  }

  /** The document status the plan's actor is in ("unknown" for a plan without an actor). */
  statusOf(planPath: string): string {
    const snapshot = this.registry.snapshot(planPath)
    return snapshot ? planStatusOf(snapshot.value) : "unknown"
  }

  /**
   * The draft write-ban, asked of the session's live plan: null when the tool may run, else the refusal. A session
   * without a live plan costs one map lookup. With one, the document is stat-ed (no read) and, only when its stamp
   * changed since last seen, re-read and followed first: a hand edit of the status moves the gate both ways.
   */
  async gate(sessionId: string, tool: string): Promise<string | null> {
    await this.refresh()
    const livePath = this.registry.liveFor(sessionId)
    if (livePath === undefined) return null
    await this.followDocument(livePath)
    const planPath = this.registry.liveFor(sessionId)
    if (planPath !== livePath) this.seen.delete(livePath)
    if (planPath === undefined) return null
    const snapshot = this.registry.snapshot(planPath)
    if (snapshot === undefined) return null
    const event: PlanEvent = { type: "tool.use", tool }
    return snapshot.can(event) ? null : explainPlanRefusal(snapshot, event)
  }

  /**
   * After any tool call of the session: follows the live plan's document (when its stamp changed) and, when the
   * document now says a status the plan holds pending the user's dialog, names it once (empty otherwise).
   */
  async afterTool(sessionId: string): Promise<string> {
    const planPath = this.registry.liveFor(sessionId)
    if (planPath === undefined) return ""
    await this.followDocument(planPath)
    const snapshot = this.registry.snapshot(planPath)
    const pending = snapshot?.context.pendingDocument ?? null
    if (snapshot === undefined || pending === null) {
      this.named.delete(planPath)
      return ""
    }
    if (this.named.get(planPath) === pending) return ""
    this.named.set(planPath, pending)
    return pendingDocumentNote(snapshot).trim()
  }

  /**
   * The session's live plan and the status its document says pending the user's dialog (null when none), with the
   * document followed first: /plan confirm's question.
   */
  async pendingDocumentOf(sessionId: string): Promise<{ planPath: string; status: string; pending: string | null } | undefined> {
    const planPath = await this.latestLiveFor(sessionId)
    if (planPath === undefined) return undefined
    await this.sync.fromDocument(planPath)
    const snapshot = this.registry.snapshot(planPath)
    return { planPath, status: this.statusOf(planPath), pending: snapshot?.context.pendingDocument ?? null }
  }

  /** Follows a live plan's document when its stamp changed; a document that cannot be followed keeps the plan as it is. */
  private async followDocument(planPath: string): Promise<void> {
    const stamp = this.files.stamp(planPath)
    if (this.seen.has(planPath) && this.seen.get(planPath) === stamp) return
    // Taken before the read: an edit that lands during the read shows up as a new stamp on the next call.
    this.seen.set(planPath, stamp)
    try {
      await this.sync.fromDocument(planPath)
    } catch (error) {
      const state = this.statusOf(planPath)
      this.log.warn(
        `plan ${planPath}: the document changed but cannot be followed (${error instanceof Error ? error.message : String(error)}); the plan stays ${state} until the document is fixed`,
      )
    }
  }

  /** plan_write: creates the session's plan, or rewrites its draft. */
  async write(sessionId: string, content: string, title?: string): Promise<PlanOutcome> {
    await this.refresh()
    const livePath = this.registry.liveFor(sessionId)
    if (livePath !== undefined) return this.revise(livePath, () => content, "Plan revised", undefined, title?.trim() || undefined)
    const planTitle = planTitleOf(content, title)
    const now = this.iso()
    const frontmatter: PlanFrontmatter = { status: "draft", title: planTitle, created: now, updated: now, session: sessionId }
    const text = renderPlanDocument(frontmatter, normalizeBody(content))
    // The name is chosen from the folder as listed, outside the step: another opencode process on the workspace may
    // create a plan under the same name in between (the same title at the same moment). Its step then refuses this
    // one, and the next free name is taken; a few collisions in a row are not a race any more, they are reported.
    for (let attempt = 1; ; attempt++) {
      const taken = new Set((await this.files.list()).map((p) => p.slice(PLAN_DIR.length + 1)))
      const planPath = `${PLAN_DIR}/${planFileName(now.slice(0, 10), slugify(planTitle), taken)}`
      const body = parsePlanBody(normalizeBody(content), planPath)
      const input = { planPath, sessionId, tasks: toTaskStates(body.tasks), criteria: body.criteria.map((c) => c.text), document: text }
      let snapshot: PlanSnapshot
      try {
        snapshot = await this.registry.lifecycle.create(planPath, input)
      } catch (error) {
        // Another opencode process on the workspace gave this session a plan since this one last looked.
        if (error instanceof ExclusiveKeyTaken) throw new SessionHasPlanError(sessionId, error.holder)
        if (attempt < NAME_ATTEMPTS && (await this.takenByAnotherProcess(planPath))) continue
        throw error
      }
      this.registry.track(snapshot)
      const doc = parsePlanDocument(text, planPath)
      return { planPath, output: [`Plan created: ${planPath}`, structureReport(doc), draftNotice(planPath)].join("\n\n") }
    }
  }

  /** Whether a refused create met a live plan another process created under the same name (this one now knows it). */
  private async takenByAnotherProcess(planPath: string): Promise<boolean> {
    await this.refresh()
    return this.registry.lifecycle.has(planPath)
  }

  /** plan_edit: exact replacement in the draft's body; an empty oldString creates the plan when there is none. */
  async edit(sessionId: string, oldString: string, newString: string, replaceAll = false): Promise<PlanOutcome> {
    await this.refresh()
    const livePath = this.registry.liveFor(sessionId)
    if (livePath === undefined) {
      if (oldString === "") return this.write(sessionId, newString)
      throw new NoPlanError(sessionId)
    }
    let count = 0
    let touched: [number, number] | undefined
    const outcome = await this.revise(
      livePath,
      (body, bodyStartLine) => {
        const replaced = replaceExact(body, oldString, newString, replaceAll)
        count = replaced.count
        touched = [replaced.touched[0] + bodyStartLine - 1, replaced.touched[1] + bodyStartLine - 1]
        return replaced.text
      },
      "Plan edited",
      () => touched,
    )
    return { planPath: outcome.planPath, output: `Replaced ${count} occurrence(s).\n\n${outcome.output}` }
  }

  /** plan_approve: the machine moves to its confirming state, and only the user's allow moves it on. */
  async approve(sessionId: string, confirm: Confirm): Promise<PlanOutcome> {
    await this.refresh()
    const planPath = this.requireLive(sessionId)
    const doc = await this.sync.fromDocument(planPath)
    const opened = await this.dispatch(planPath, { type: "plan.approve" })
    const allowed = await this.ask(opened, confirm, approveDialog(planPath, doc))
    if (!allowed)
      return this.withPending({
        planPath,
        output: `The user did not approve ${planPath}; it stays a draft and writes stay banned. Ask what to change, revise with plan_edit, then ask again.`,
      })
    return { planPath, output: `Plan approved: ${planPath}. Writes are open. Work through the tasks in order and tick each with plan_tick as it is done.` }
  }

  /** plan_tick: one task, timestamped in the document. */
  async tick(sessionId: string, task: number): Promise<PlanOutcome> {
    await this.refresh()
    const planPath = this.requireLive(sessionId)
    await this.sync.fromDocument(planPath)
    const snapshot = await this.dispatch(planPath, { type: "plan.tick", task })
    const open = snapshot.context.tasks.filter((t) => !t.ticked).map((t) => t.number)
    const next =
      open.length === 0
        ? "Every task is ticked: self-check each acceptance criterion, then plan_close with one check (pass + evidence) per criterion."
        : `Open tasks: ${open.join(", ")}.`
    return this.withPending({ planPath, output: `Ticked task ${task} of ${planPath}. ${next}` })
  }

  /** plan_close: the close gate (every task ticked, one passing check per criterion), then the user's dialog. */
  async close(sessionId: string, checks: CriterionCheck[], confirm: Confirm): Promise<PlanOutcome> {
    await this.refresh()
    const planPath = this.requireLive(sessionId)
    const doc = await this.sync.fromDocument(planPath)
    const opened = await this.dispatch(planPath, { type: "plan.close", checks })
    const allowed = await this.ask(opened, confirm, closeDialog(planPath, doc, checks))
    if (!allowed) return this.withPending({ planPath, output: `The user did not confirm closing ${planPath}; it stays approved. Ask what is missing.` })
    return { planPath, output: `Plan closed: ${planPath} is done. Each criterion's evidence is recorded in the document.` }
  }

  /**
   * plan_discard and /plan discard: abandoned, or superseded when a successor document takes the work over. The
   * user's own command acts at once; the model's discard of a draft would lift its own write-ban, so the machine
   * holds it for the user's dialog, like approval.
   */
  async discard(sessionId: string, requester: DiscardRequester, reason?: string, supersede?: string): Promise<PlanOutcome> {
    await this.refresh()
    const planPath = this.requireLive(sessionId)
    const doc = await this.sync.fromDocument(planPath)
    const event: PlanEvent =
      supersede !== undefined ? { type: "plan.supersede", by: requester.by, successor: supersede, reason } : { type: "plan.discard", by: requester.by, reason }
    // The machine writes the document only on the step that ends the plan, not on the one that opens the dialog.
    const held = await this.dispatch(planPath, event)
    if (held.hasTag("awaiting-user")) {
      const confirm: Confirm = requester.by === "model" ? requester.confirm : async () => false
      const allowed = await this.ask(held, confirm, discardDialog(planPath, doc, reason, supersede))
      if (!allowed) {
        return {
          planPath,
          output: `The user did not allow discarding ${planPath}; it stays a draft and writes stay banned. Ask the user what to do: approve it, change it with plan_edit, or discard it themselves with /plan discard.`,
        }
      }
    }
    return supersede !== undefined
      ? { planPath, output: `Plan superseded: ${planPath} now points to ${supersede}. Writes are no longer banned by it.` }
      : { planPath, output: `Plan discarded: ${planPath} is abandoned. Writes are no longer banned by it.` }
  }

  /**
   * /plan resume: binds a live plan to this session, recorded in the document's frontmatter and as a plan.bind
   * transition. A plan bound to another session (an earlier run's, or another live session's: resume is the user's
   * own command) moves here; `from` names the session it was bound to.
   */
  async bind(sessionId: string, planPath: string): Promise<PlanOutcome & { from: string | null }> {
    await this.refresh()
    const current = this.registry.liveFor(sessionId)
    if (current !== undefined && current !== planPath)
      throw new Error(`this session already has a live plan: ${current}. Finish or discard it before resuming another.`)
    // A document without an actor (a lost database, a hand-written plan) is adopted first, under the session it names.
    const before = this.registry.lifecycle.has(planPath) ? undefined : await this.sync.adopt(planPath, sessionId)
    await this.sync.fromDocument(planPath)
    const from = (before ?? this.registry.snapshot(planPath))?.context.sessionId ?? null
    // Asked of the machine even when the session already matches: a finished plan refuses in its own words.
    await this.dispatch(planPath, { type: "plan.bind", sessionId })
    return {
      ...this.withPending({ planPath, output: `Resumed ${planPath} (${this.statusOf(planPath)}) in this session.` }),
      from: from === sessionId ? null : from,
    }
  }

  private async revise(
    planPath: string,
    change: (body: string, bodyStartLine: number) => string,
    verb: string,
    touched?: () => [number, number] | undefined,
    title?: string,
  ): Promise<PlanOutcome> {
    const doc = await this.sync.fromDocument(planPath)
    const bodyStartLine = doc.text.split("\n").length - doc.body.split("\n").length + 1
    // Ask the machine before computing anything (may this plan be revised at all: to the document as it stands?):
    // an approved plan refuses revisions outright, whatever the change.
    this.registry.lifecycle.check(planPath, {
      type: "plan.revise",
      tasks: toTaskStates(doc.tasks),
      criteria: doc.criteria.map((c) => c.text),
      document: doc.text,
    })
    const body = normalizeBody(change(doc.body, bodyStartLine))
    const parsed = parsePlanBody(body, planPath, bodyStartLine - 1)
    const text = renderPlanDocument({ ...doc.frontmatter, ...(title ? { title } : {}), updated: this.iso() }, body)
    await this.dispatch(planPath, { type: "plan.revise", tasks: toTaskStates(parsed.tasks), criteria: parsed.criteria.map((c) => c.text), document: text })
    const range = touched?.()
    const report = structureReport({ ...parsePlanDocument(text, planPath) }, range ? { touchedLines: range } : undefined)
    return this.withPending({ planPath, output: `${verb}: ${planPath}\n\n${report}\n\n${draftNotice(planPath)}` })
  }

  /** A plan answer, with the document's pending status named after it (tools answer from the plan's state). */
  private withPending(outcome: PlanOutcome): PlanOutcome {
    const snapshot = this.registry.snapshot(outcome.planPath)
    const note = snapshot === undefined ? "" : pendingDocumentNote(snapshot).trim()
    return note === "" ? outcome : { ...outcome, output: `${outcome.output}\n\n${note}` }
  }

  private async dispatch(planPath: string, event: PlanEvent): Promise<PlanSnapshot> {
    const snapshot = await this.registry.lifecycle.dispatch(planPath, event)
    this.registry.track(snapshot)
    return snapshot
  }

  /**
   * Asks the user about the dialog `opened` holds open; the answer names that dialog, so the machine refuses it when
   * the plan moved on meanwhile (another command, or another opencode process on the workspace). The kernel closes a
   * failed dialog, or an allow that could not be committed, as a no.
   */
  private async ask(opened: PlanSnapshot, confirm: Confirm, request: DialogRequest): Promise<boolean> {
    const { dialog, planPath } = opened.context
    const answer = (allowed: boolean): PlanEvent => (allowed ? { type: "dialog.allow", dialog } : { type: "dialog.reject", dialog })
    const { allowed } = await this.registry.lifecycle.ask(planPath, request, confirm, answer)
    return allowed
  }

  /** Brings in what other opencode processes on the workspace did to plans; a database in trouble keeps what this one knows. */
  private async refresh(): Promise<void> {
    try {
      await this.registry.lifecycle.refresh()
    } catch (error) {
      this.log.warn(`could not read what other processes did to plans: ${error instanceof Error ? error.message : String(error)}`)
    }
  }

  private requireLive(sessionId: string): string {
    const planPath = this.registry.liveFor(sessionId)
    if (planPath === undefined) throw new NoPlanError(sessionId)
    return planPath
  }

  private iso(): string {
    return new Date(this.clock.now()).toISOString()
  }
}

function draftNotice(planPath: string): string {
  return `Status: draft. Every write, edit, shell and task tool stays banned in this session until the user approves ${planPath}. Present the plan, end your turn, and wait for the user's go-ahead before calling plan_approve.`
}
