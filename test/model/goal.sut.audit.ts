import { expect } from "vitest"
import type { SnapshotFrom } from "xstate"
import type { GoalEvent, goalMachine } from "../../machines/goal/goal.machine"
import { GOAL_AUDIT_MARKER } from "../../services/goal/goal.audit.brief"
import type { GoalAudits } from "../../services/goal/goal.audit"
import type { LifecycleHost } from "../../services/lifecycle/lifecycle.host"
import { GateRefusal } from "../../services/lifecycle/gate.refusal"
import { AUDIT_OPEN_FAILURE, AUDIT_TURN_FAILURE, type FakeAuditSessions, type FakeClock } from "./goal.fakes"
import type { Opening } from "./model.dialogs"

type Snapshot = SnapshotFrom<typeof goalMachine>
type AuditEvent = Extract<
  GoalEvent,
  { type: "goal.audit.opened" | "goal.audit.tool" | "goal.review.write" | "goal.review.delete" | "goal.audit.done" | "goal.audit.failed" }
>

/** The session an audit that is left before its session opened is given at last (its open then refused). */
const LATE_AUDITOR = "ses_auditor_late"

/** What `goal.audit.failed` says when the auditor session cannot open, or its turn fails (the service's own words). */
export function auditFailureText(session: string | null): string {
  return session === null
    ? `the auditor session could not be opened: ${AUDIT_OPEN_FAILURE}`
    : `the auditor session ${session} did not finish: ${AUDIT_TURN_FAILURE}`
}

/**
 * Events the harness asks the machine (`can`) and never sends: a tool call of an auditor (the write-ban), a second
 * session for an audit that has one, and the end of a turn that is not the audit's session's (nothing waits on it).
 */
export function isAskedOnly(event: GoalEvent, before: Snapshot): boolean {
  const session = before.context.audit?.session ?? null
  if (event.type === "goal.audit.tool") return true
  if (event.type === "goal.audit.opened") return session !== null
  return event.type === "goal.audit.done" && event.session !== session
}

/**
 * The goal SUT's audit side: goal_complete's call held while its audit runs, and the auditor session's steps produced
 * through the real GoalAudits (its review tools, its write-ban) with the fake sessions (goal.fakes.ts) at the edge.
 */
export class GoalAuditDriver {
  /** goal_complete's call while its audit runs: it opens the completion dialog after a clean audit, refuses otherwise. */
  private call: Promise<Opening> | undefined

  constructor(
    private readonly audits: GoalAudits,
    private readonly sessions: FakeAuditSessions,
    private readonly clock: FakeClock,
    private readonly host: LifecycleHost,
    /** The machine's answer for the goal, for what is asked and never sent. */
    private readonly can: (event: GoalEvent) => boolean,
  ) {}

  /** goal_complete took the goal to its audit: the call waits for its auditor session to open. */
  async started(call: Promise<Opening>): Promise<void> {
    this.call = call
    let ended: unknown
    call.then(
      (opening) => {
        ended = opening
      },
      (error: unknown) => {
        ended = error
      },
    )
    await this.until(() => this.sessions.isOpening || ended !== undefined, "the audit never asked for its auditor session")
    if (!this.sessions.isOpening)
      throw new Error(`goal_complete ended before its audit opened a session: ${String(ended instanceof Error ? ended.message : JSON.stringify(ended))}`)
  }

  /** Produces an audit event; `after` is where the model says the goal is then. */
  async produce(event: AuditEvent, before: Snapshot, after: Snapshot, accepted: boolean): Promise<void> {
    switch (event.type) {
      case "goal.audit.opened": {
        if (isAskedOnly(event, before)) return expect(this.can(event), "a second session for the audit").toBe(accepted)
        this.sessions.opened(event.session)
        // The brief goes out once the session is the audit's, and the audit waits on its turn.
        await this.until(() => this.sessions.waitsOn(event.session), "the audit never waited on its auditor's turn")
        const brief = this.sessions.sent.at(-1)
        expect(brief?.session, "the brief's session").toBe(event.session)
        expect(brief?.text, "the auditor's brief").toMatch(new RegExp(`^\\${GOAL_AUDIT_MARKER} Audit ${(before.context.audit?.rounds ?? 0) + 1} of goal `))
        return expect(accepted, "the session opened").toBe(true)
      }
      case "goal.audit.tool":
        expect(this.audits.toolRefusal(event.session, event.tool) === null, `"${event.tool}" for ${event.session}`).toBe(accepted)
        return
      case "goal.review.write": {
        const { file, line, severity, description, scenario } = event.finding
        const attempt = this.audits.write(event.session, { file, line, severity, description, ...(scenario === null ? {} : { scenario }) })
        return this.settles(attempt, accepted)
      }
      case "goal.review.delete":
        return this.settles(this.audits.delete(event.session, { file: event.file, line: event.line }), accepted)
      case "goal.audit.done": {
        if (isAskedOnly(event, before)) return expect(this.can(event), "the end of another session's turn").toBe(accepted)
        this.clock.at = event.now
        this.sessions.finish(event.session, event.summary)
        return this.callEnds(accepted, after)
      }
      case "goal.audit.failed": {
        this.clock.at = event.now
        const session = before.context.audit?.session ?? null
        if (session === null) this.sessions.opened(new Error(AUDIT_OPEN_FAILURE))
        else this.sessions.finish(session, new Error(AUDIT_TURN_FAILURE))
        return this.callEnds(accepted, after)
      }
    }
  }

  /**
   * The goal left its audit another way (a pause, a takeover): the auditor's turn was stopped, and the call that waited
   * on it finds the goal moved on. A session still opening is given at last, and stopped.
   */
  async left(before: Snapshot): Promise<void> {
    const session = before.context.audit?.session ?? null
    if (session !== null) expect(this.sessions.stopped, "the auditor's turn was stopped").toContain(session)
    if (this.sessions.isOpening) this.sessions.opened(LATE_AUDITOR)
    await expect(this.take(), "goal_complete's call").rejects.toBeInstanceOf(GateRefusal)
  }

  /** The path ends with an audit running: its session fails, and its call ends whichever way. */
  async abandon(): Promise<void> {
    if (this.call === undefined) return
    if (this.sessions.isOpening) this.sessions.opened(new Error("the path ended"))
    for (const session of this.sessions.sent.map((s) => s.session))
      if (this.sessions.waitsOn(session)) this.sessions.finish(session, new Error("the path ended"))
    await this.take().catch(() => undefined)
  }

  /** The audit ended (its session's turn, or its failure): a clean audit opens the completion dialog, any other refuses. */
  private async callEnds(accepted: boolean, after: Snapshot): Promise<void> {
    expect(accepted, "the audit's end is the machine's next step").toBe(true)
    if (after.hasTag("awaiting-user")) return expect((await this.take()).opened, "the completion dialog opened").toBe(true)
    await expect(this.take(), "goal_complete refused after the audit").rejects.toThrow(
      /^completion gate: the audit of goal .* (left \d+ bugs? open|could not finish)/,
    )
  }

  private take(): Promise<Opening> {
    const call = this.call
    this.call = undefined
    if (call === undefined) throw new Error("no goal_complete call waits on an audit")
    return call
  }

  private async settles(attempt: Promise<string>, accepted: boolean): Promise<void> {
    if (accepted) await attempt
    else await expect(attempt).rejects.toBeInstanceOf(GateRefusal)
  }

  /** Lets the service's steps run until `done` holds, for up to 10 s (sqlite and the file writes answer on their threads). */
  private async until(done: () => boolean, failure: string): Promise<void> {
    const deadline = Date.now() + 10_000
    while (!done() && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1))
      await this.host.idle()
    }
    if (!done()) throw new Error(failure)
  }
}
