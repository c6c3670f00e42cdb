import { and, assertEvent, assign, emit, not, setup } from "xstate"
import {
  type GoalStopReason,
  NO_ACTIVITY,
  hasActivity,
  hasBudgetLeft,
  hasOneAttestationPerCriterion,
  isArmBlockedByLiveGoal,
  isArmableContract,
  isCostBudgetSpent,
  isDueAt,
  isEveryCheckPassed,
  isNoProgress,
  isShownRunPassed,
  isTimeBudgetSpent,
  isTokenBudgetSpent,
  isTransportFailureLimit,
  isTurnBudgetSpent,
  isUserGatedGoalDocumentStatus,
  resumedLimits,
} from "./goal.gates"
import type { GoalMachineStatus } from "./goal.status"
import { isDrivenElsewhere, mayDrive } from "../driver.claim"
import { isAnswerToOpenDialog, nextDialog } from "../dialog.gates"
import type { GoalContext, GoalDocumentChange, GoalEvent, GoalInput, GoalTag } from "./goal.types"
import { type GoalAudit, type GoalAuditOutcome, findingPlace, isAuditorTool, openAuditBugs } from "./goal.audit"

/** What the goal machine emits: a tool an auditor session may call (an explicit transition, so `can()` sees it). */
export type GoalEmitted = { type: "tool.permitted"; tool: string }

/** The goal's audit; only a goal born with one has audit events offered (a guard asks isAuditRequired first). */
function auditOf(context: GoalContext): GoalAudit {
  if (context.audit === null) throw new Error(`goal ${context.goalPath} has no audit`)
  return context.audit
}

// The goal machine's named guards (each calls a pure predicate of goal.gates.ts) and actions: context updates, and the
// effects each harness supplies (createGoalImplementations), declared here as placeholders that throw.

export const goalSetup = setup({
  types: {
    context: {} as GoalContext,
    events: {} as GoalEvent,
    input: {} as GoalInput,
    tags: {} as GoalTag,
    emitted: {} as GoalEmitted,
  },
  guards: {
    isArmBlockedByLiveGoal: ({ context }) => isArmBlockedByLiveGoal(context.birth),
    isArmable: ({ context }) => isArmableContract({ checkCount: context.contract.checks.length }),
    hasDraftPlan: ({ event }) => {
      assertEvent(event, ["goal.arm", "goal.resume", "loop.due"])
      return event.draftPlan
    },
    canArm: and(["isArmable", not("hasDraftPlan")]),
    hasResumeBudget: ({ context, event }) => {
      assertEvent(event, "goal.resume")
      const limits = resumedLimits({ ...event, limits: context.limits })
      return hasBudgetLeft({ now: event.now, armedAt: context.armedAt, turnsUsed: context.turnsUsed, spend: context.spend, limits })
    },
    canResume: and(["isArmable", not("hasDraftPlan"), "hasResumeBudget"]),
    // The direction of a document change: one that would pass a gate the user holds is held, never followed.
    isDocumentPassingUserGate: ({ event }, params: { from: GoalMachineStatus }) => {
      assertEvent(event, "goal.document.changed")
      return isUserGatedGoalDocumentStatus(params.from, event.status)
    },
    isDocumentPaused: ({ event }) => {
      assertEvent(event, "goal.document.changed")
      return event.status === "paused"
    },
    isDocumentAbandoned: ({ event }) => {
      assertEvent(event, "goal.document.changed")
      return event.status === "abandoned"
    },
    isByUser: ({ event }) => {
      assertEvent(event, "goal.discard")
      return event.by === "user"
    },
    isByModel: ({ event }) => {
      assertEvent(event, "goal.discard")
      return event.by === "model"
    },
    isEveryCheckPassed: ({ context, event }) => {
      assertEvent(event, "goal.complete")
      return isEveryCheckPassed({ revision: context.revision, checkCount: context.contract.checks.length, run: event.run })
    },
    hasOneAttestationPerCriterion: ({ context, event }) => {
      assertEvent(event, "goal.complete")
      return hasOneAttestationPerCriterion({ criteria: context.contract.success, attestations: event.attestations })
    },
    // The completion dialog shows the user the run the call's line showed: only a pass of every check opens it.
    isShownRunPassed: ({ context, event }) => {
      assertEvent(event, "goal.complete")
      return isShownRunPassed({ revision: context.revision, checkCount: context.contract.checks.length, shown: event.shown })
    },
    // The completion gate's first key: the host's own run passed, one attestation per criterion, the user saw the run.
    isVerified: and(["isEveryCheckPassed", "hasOneAttestationPerCriterion", "isShownRunPassed"]),
    isAuditRequired: ({ context }) => context.audit !== null,
    // Its second key: a goal born with an audit goes to its auditor first, and completes only from a clean audit.
    canComplete: and(["isVerified", not("isAuditRequired")]),
    canAudit: and(["isVerified", "isAuditRequired"]),
    hasNoAuditSession: ({ context }) => context.audit?.session === null,
    isFromAuditSession: ({ context, event }) => {
      assertEvent(event, ["goal.audit.tool", "goal.review.write", "goal.review.delete", "goal.audit.done"])
      const session = context.audit?.session ?? null
      return session !== null && event.session === session
    },
    isAuditorTool: ({ event }) => {
      assertEvent(event, "goal.audit.tool")
      return isAuditorTool(event.tool)
    },
    // The auditor reads, searches and runs checks (its shells are read-only); it changes nothing.
    canAuditorUse: and(["isFromAuditSession", "isAuditorTool"]),
    // One finding per place: a second one there is refused until the first is deleted.
    isNewFindingPlace: ({ context, event }) => {
      assertEvent(event, "goal.review.write")
      return !auditOf(context).findings.some((f) => findingPlace(f) === findingPlace(event.finding))
    },
    hasFindingAt: ({ context, event }) => {
      assertEvent(event, "goal.review.delete")
      return auditOf(context).findings.some((f) => findingPlace(f) === findingPlace(event))
    },
    canRecordFinding: and(["isFromAuditSession", "isNewFindingPlace"]),
    canDeleteFinding: and(["isFromAuditSession", "hasFindingAt"]),
    hasNoOpenBug: ({ context }) => openAuditBugs(auditOf(context)).length === 0,
    // Clean: the auditor's turn ended with no bug open, its own or an earlier audit's it did not find fixed.
    isCleanAudit: and(["isFromAuditSession", "hasNoOpenBug"]),
    isDue: ({ context, event }) => {
      assertEvent(event, "loop.due")
      return isDueAt({ now: event.now, dueAt: context.dueAt })
    },
    isNotDue: not("isDue"),
    // A live driver is never taken over: only the claim's holder, or a process taking over a dead one's, decides.
    isDrivenElsewhere: ({ event }) => {
      assertEvent(event, "loop.due")
      return isDrivenElsewhere(event.driver)
    },
    // A process takes a goal over only where no live process drives it: a dialog a live process shows stays open.
    canTakeOver: ({ event }) => {
      assertEvent(event, "goal.restored")
      return mayDrive(event.driver)
    },
    isForeignSpeaker: ({ event }) => {
      assertEvent(event, "loop.due")
      return event.speaker !== "forge"
    },
    isNoProgress: ({ context }) => isNoProgress(context),
    isTurnBudgetSpent: ({ context }) => isTurnBudgetSpent(context),
    isTimeBudgetSpent: ({ context, event }) => {
      assertEvent(event, "loop.due")
      return isTimeBudgetSpent({ now: event.now, armedAt: context.armedAt, limits: context.limits })
    },
    isCostBudgetSpent: ({ context, event }) => {
      assertEvent(event, "loop.due")
      return isCostBudgetSpent({ spend: event.spend, limits: context.limits })
    },
    isTokenBudgetSpent: ({ context, event }) => {
      assertEvent(event, "loop.due")
      return isTokenBudgetSpent({ spend: event.spend, limits: context.limits })
    },
    isTransportFailureLimit: ({ context }) => isTransportFailureLimit(context),
    // An answer moves the goal only for the dialog open now: one to a dialog that has since closed changes nothing.
    isAnswerToOpenDialog: ({ context, event }) => {
      assertEvent(event, ["dialog.allow", "dialog.reject"])
      return isAnswerToOpenDialog({ open: context.dialog, answered: event.dialog })
    },
  },
  actions: {
    // Every entry into a dialog state opens a new dialog, so two dialogs in the same state are told apart.
    openDialog: assign({ dialog: ({ context }) => nextDialog(context.dialog) }),
    holdArm: assign(({ context, event }) => {
      assertEvent(event, "goal.arm")
      return { pending: { sessionId: event.sessionId, limits: context.limits } }
    }),
    holdResume: assign(({ context, event }) => {
      assertEvent(event, "goal.resume")
      return {
        pending: { sessionId: event.sessionId, limits: resumedLimits({ ...event, limits: context.limits }) },
      }
    }),
    dropPending: assign({ pending: null }),
    // A permitted tool use is an explicit transition: `can()` counts only transitions that do something.
    permitTool: emit(({ event }) => {
      assertEvent(event, "goal.audit.tool")
      return { type: "tool.permitted" as const, tool: event.tool }
    }),
    recordAuditSession: assign(({ context, event }) => {
      assertEvent(event, "goal.audit.opened")
      const audit = auditOf(context)
      return { audit: { ...audit, session: event.session, sessions: [...audit.sessions, event.session] } }
    }),
    addFinding: assign(({ context, event }) => {
      assertEvent(event, "goal.review.write")
      const audit = auditOf(context)
      return { audit: { ...audit, findings: [...audit.findings, { ...event.finding, session: event.session }] } }
    }),
    removeFinding: assign(({ context, event }) => {
      assertEvent(event, "goal.review.delete")
      const audit = auditOf(context)
      return { audit: { ...audit, findings: audit.findings.filter((f) => findingPlace(f) !== findingPlace(event)) } }
    }),
    closeAuditSession: assign(({ context }) => ({ audit: context.audit === null ? null : { ...context.audit, session: null } })),
    // An audit ended: counted, its session closed, and how it ended kept (the auditor's summary, or the failure).
    endAudit: assign(({ context, event }, { outcome }: { outcome: GoalAuditOutcome }) => {
      assertEvent(event, ["goal.audit.done", "goal.audit.failed", "goal.restored"])
      const summary =
        event.type === "goal.audit.done" ? event.summary : event.type === "goal.audit.failed" ? event.error : "the process running the audit ended"
      const audit = auditOf(context)
      return { audit: { ...audit, session: null, rounds: audit.rounds + 1, last: { outcome, summary, at: event.now } } }
    }),
    // Entering active binds the owner, starts the clock once (a resume keeps the time already spent) and clears the stop.
    activate: assign(({ context, event }) => {
      assertEvent(event, "dialog.allow")
      return {
        sessionId: context.pending?.sessionId ?? context.sessionId,
        limits: context.pending?.limits ?? context.limits,
        armedAt: context.armedAt ?? event.now,
        // The audit's diff starts where the workspace stood at the first arm (a resume keeps it, as it keeps the clock).
        audit: context.audit === null ? null : { ...context.audit, base: context.audit.base ?? event.auditBase ?? null },
        pending: null,
        // The armed or resumed document says active: whatever it said before is no longer pending.
        pendingDocument: null,
        stopReason: null,
        blocker: null,
        dueAt: null,
        turnOpen: false,
        activity: NO_ACTIVITY,
        idleStreak: 0,
        transportFailures: 0,
      }
    }),
    storeRevision: assign(({ context, event }) => {
      assertEvent(event, "goal.revise")
      return { contract: event.contract, limits: event.limits, revision: context.revision + 1 }
    }),
    stopWith: assign((_, { reason }: { reason: GoalStopReason }) => ({ stopReason: reason, blocker: null, dueAt: null })),
    stopByRequest: assign(({ event }) => {
      assertEvent(event, "goal.pause")
      const blocker = event.blocker?.trim() || null
      return { stopReason: blocker === null ? ("user" as const) : ("blocker" as const), blocker, dueAt: null }
    }),
    recordDiscard: assign(({ event }) => {
      assertEvent(event, "goal.discard")
      return { reason: event.reason ?? null, pending: null, dueAt: null }
    }),
    // The document says abandoned: it only tightens, so it is followed as the user's own discard would be.
    recordDocumentDiscard: assign({ reason: "the goal document says abandoned", pending: null, dueAt: null }),
    dropReason: assign({ reason: null }),
    holdDocumentStatus: assign(({ event }) => {
      assertEvent(event, "goal.document.changed")
      return { pendingDocument: event.status }
    }),
    // The document says what the goal is again, or Forge wrote the status itself: nothing is pending any more.
    dropDocumentStatus: assign({ pendingDocument: null }),
    countActivity: assign(({ context, event }) => {
      assertEvent(event, ["goal.activity", "goal.checked"])
      const kind = event.type === "goal.checked" ? "checks" : event.kind
      return { activity: { ...context.activity, [kind]: context.activity[kind] + 1 } }
    }),
    scheduleDue: assign(({ context, event }) => {
      assertEvent(event, ["session.idle", "loop.failed", "goal.restored"])
      return { dueAt: event.now + context.debounceMs }
    }),
    clearDue: assign({ dueAt: null }),
    // The turn that just ended goes to the ledger (only a turn the loop started), and the no-progress streak follows it.
    closeTurn: assign(({ context }) => {
      if (!context.turnOpen) return {}
      return {
        lastTurn: { turn: context.turnsUsed, activity: context.activity },
        idleStreak: hasActivity(context.activity) ? 0 : context.idleStreak + 1,
        turnOpen: false,
        activity: NO_ACTIVITY,
      }
    }),
    recordSpend: assign(({ event }) => {
      assertEvent(event, "loop.due")
      return { spend: event.spend }
    }),
    openTurn: assign(({ context }) => ({ turnsUsed: context.turnsUsed + 1, turnOpen: true, activity: NO_ACTIVITY, dueAt: null, transportFailures: 0 })),
    holdWake: assign(({ context, event }) => {
      assertEvent(event, "job.wake")
      return { wakes: [...context.wakes, event.text] }
    }),
    dropWakes: assign({ wakes: [] }),
    countFailure: assign(({ context }) => ({ transportFailures: context.transportFailures + 1 })),
    // Placeholders: each harness provides them (createGoalImplementations); a step is committed only once they succeeded.
    writeDocument: (_, _params: { change: GoalDocumentChange }) => {
      throw new Error("goal action writeDocument not provided")
    },
    sendBrief: () => {
      throw new Error("goal action sendBrief not provided")
    },
    sendWrapUp: () => {
      throw new Error("goal action sendWrapUp not provided")
    },
    // Stops the auditor session of an audit the goal leaves another way (a pause, a discard, a takeover); best effort.
    stopAuditor: () => {
      throw new Error("goal action stopAuditor not provided")
    },
    // Wakes held for a brief that will not come (the loop parks or stops): sent on their own, as the job would have.
    releaseWakes: () => {
      throw new Error("goal action releaseWakes not provided")
    },
  },
})
