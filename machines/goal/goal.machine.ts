import { GOAL_DEBOUNCE_MS } from "./goal.gates"
import { newGoalAudit } from "./goal.audit"
import { goalSetup } from "./goal.setup"

export type { GoalBirthFacts, GoalContext, GoalDocumentChange, GoalEvent, GoalInput, GoalRequester, GoalTag } from "./goal.types"

// The goal lifecycle: an objective the host verifies, driven by its own continuation loop. The top-level state is the
// document's status; `active`'s children are the loop (working → debouncing → a decision → working), so the loop's
// deadline and counters are snapshot data and a restart resumes it with its turns and time spent. Dialog states
// exist only while the user is asked: the dialog is the only road to active and to completed. A goal whose birth the
// machine refuses (a write asking to arm it beside the session's live goal) ends at birth in `refused`, and the host
// creates, writes and records nothing of it. Every entry into a dialog state opens a new dialog (numbered in the
// context): an answer is taken only for the dialog open now (machines/dialog.gates.ts).

/** Bumped whenever a change would make an older persisted snapshot unfit for this definition. */
export const GOAL_MACHINE_VERSION = "2"

export const goalMachine = goalSetup.createMachine({
  id: "goal",
  version: GOAL_MACHINE_VERSION,
  context: ({ input: { document: _document, debounceMs, audit, ...input } }) => ({
    ...input,
    debounceMs: debounceMs ?? GOAL_DEBOUNCE_MS,
    revision: 1,
    turnsUsed: 0,
    armedAt: null,
    stopReason: null,
    blocker: null,
    dueAt: null,
    turnOpen: false,
    activity: { writes: 0, shell: 0, checks: 0, ticks: 0 },
    idleStreak: 0,
    transportFailures: 0,
    lastTurn: null,
    spend: { cost: 0, tokens: 0 },
    pending: null,
    reason: null,
    wakes: [],
    pendingDocument: null,
    dialog: 0,
    audit: audit === true ? newGoalAudit() : null,
  }),
  initial: "writing",
  states: {
    // Only a new goal passes here: the birth gate. An accepted goal enters queued (its document written there).
    writing: {
      always: [{ guard: "isArmBlockedByLiveGoal", target: "refused" }, { target: "queued" }],
    },
    queued: {
      // Only a new goal enters queued from outside: a restore or a reconcile resolves its state without entering it.
      entry: { type: "writeDocument", params: { change: "created" } },
      initial: "waiting",
      on: {
        "goal.discard": { guard: "isByUser", target: "abandoned", actions: ["recordDiscard", { type: "writeDocument", params: { change: "abandoned" } }] },
        "goal.checked": { actions: { type: "writeDocument", params: { change: "checked" } } },
        // A document that says active or completed is held for the user's dialog; abandoned is followed (it only
        // tightens); anything else holds nothing.
        "goal.document.changed": [
          { guard: { type: "isDocumentPassingUserGate", params: { from: "queued" } }, actions: "holdDocumentStatus" },
          {
            guard: "isDocumentAbandoned",
            target: "#goal.abandoned",
            actions: ["recordDocumentDiscard", { type: "writeDocument", params: { change: "abandoned" } }],
          },
          { actions: "dropDocumentStatus" },
        ],
      },
      states: {
        waiting: {
          on: {
            "goal.arm": { guard: "canArm", target: "arming", actions: "holdArm" },
            "goal.revise": { actions: ["storeRevision", { type: "writeDocument", params: { change: "revised" } }] },
            "goal.discard": { guard: "isByModel", target: "discarding", actions: "recordDiscard" },
          },
        },
        arming: {
          tags: ["awaiting-user"],
          entry: "openDialog",
          on: {
            "dialog.allow": {
              guard: "isAnswerToOpenDialog",
              target: "#goal.active",
              actions: ["activate", { type: "writeDocument", params: { change: "armed" } }],
            },
            "dialog.reject": { guard: "isAnswerToOpenDialog", target: "waiting", actions: "dropPending" },
            // The process that showed the dialog is gone: it closes unanswered.
            "goal.restored": { guard: "canTakeOver", target: "waiting", actions: "dropPending" },
          },
        },
        discarding: {
          tags: ["awaiting-user"],
          entry: "openDialog",
          on: {
            "dialog.allow": { guard: "isAnswerToOpenDialog", target: "#goal.abandoned", actions: { type: "writeDocument", params: { change: "abandoned" } } },
            "dialog.reject": { guard: "isAnswerToOpenDialog", target: "waiting", actions: "dropReason" },
            "goal.restored": { guard: "canTakeOver", target: "waiting", actions: "dropReason" },
          },
        },
      },
    },
    active: {
      tags: ["live", "driving"],
      initial: "working",
      exit: ["releaseWakes", "dropWakes"],
      on: {
        // A stop always wins: the user's and the model's pause take effect in any loop state, the debounce included.
        "goal.pause": { target: "paused", actions: ["closeTurn", "stopByRequest", { type: "writeDocument", params: { change: "paused" } }] },
        "goal.discard": { guard: "isByUser", target: "abandoned", actions: ["recordDiscard", { type: "writeDocument", params: { change: "abandoned" } }] },
        "goal.activity": { actions: "countActivity" },
        "goal.checked": { actions: ["countActivity", { type: "writeDocument", params: { change: "checked" } }] },
        // A document that says completed is held for the completion dialog; one that says abandoned or paused stops the
        // goal at once (it only tightens); anything else holds nothing.
        "goal.document.changed": [
          { guard: { type: "isDocumentPassingUserGate", params: { from: "active" } }, actions: "holdDocumentStatus" },
          {
            guard: "isDocumentAbandoned",
            target: "#goal.abandoned",
            actions: ["recordDocumentDiscard", { type: "writeDocument", params: { change: "abandoned" } }],
          },
          {
            guard: "isDocumentPaused",
            target: "paused",
            actions: ["closeTurn", { type: "stopWith", params: { reason: "user" } }, { type: "writeDocument", params: { change: "paused" } }],
          },
          { actions: "dropDocumentStatus" },
        ],
      },
      states: {
        working: {
          on: {
            "job.wake": { actions: "holdWake" },
            "session.idle": { target: "debouncing", actions: "scheduleDue" },
            // Taken over from a driver that ended: the loop decides after a debounce, as after an idle.
            "goal.restored": { guard: "canTakeOver", target: "debouncing", actions: "scheduleDue" },
            "goal.revise": { actions: ["storeRevision", { type: "writeDocument", params: { change: "revised" } }] },
            "goal.complete": [
              { guard: "canComplete", target: "completing" },
              { guard: "canAudit", target: "auditing" },
            ],
            "goal.discard": { guard: "isByModel", target: "discarding", actions: "recordDiscard" },
          },
        },
        debouncing: {
          tags: ["due"],
          on: {
            "session.idle": { actions: "scheduleDue" },
            "job.wake": { actions: "holdWake" },
            "session.busy": { target: "working", actions: "clearDue" },
            "goal.revise": { target: "working", actions: ["clearDue", "storeRevision", { type: "writeDocument", params: { change: "revised" } }] },
            "goal.complete": [
              { guard: "canComplete", target: "completing", actions: "clearDue" },
              { guard: "canAudit", target: "auditing", actions: "clearDue" },
            ],
            "goal.discard": { guard: "isByModel", target: "discarding", actions: ["clearDue", "recordDiscard"] },
            // The decision, in the seed's order: speaker, ledger, no-progress, draft plan, budgets, then the brief. The
            // document is written before the brief goes out, so a brief is never sent for a turn the goal did not count.
            "loop.due": [
              { guard: "isNotDue" },
              { guard: "isDrivenElsewhere" },
              { guard: "isForeignSpeaker", target: "parked", actions: ["clearDue", "closeTurn", { type: "writeDocument", params: { change: "ledgered" } }] },
              {
                guard: "isNoProgress",
                target: "#goal.paused",
                actions: [
                  "closeTurn",
                  "recordSpend",
                  { type: "stopWith", params: { reason: "no-progress" } },
                  { type: "writeDocument", params: { change: "paused" } },
                  "sendWrapUp",
                ],
              },
              {
                guard: "hasDraftPlan",
                target: "#goal.paused",
                actions: [
                  "closeTurn",
                  "recordSpend",
                  { type: "stopWith", params: { reason: "draft-conflict" } },
                  { type: "writeDocument", params: { change: "paused" } },
                ],
              },
              {
                guard: "isTurnBudgetSpent",
                target: "#goal.paused",
                actions: [
                  "closeTurn",
                  "recordSpend",
                  { type: "stopWith", params: { reason: "budget-turns" } },
                  { type: "writeDocument", params: { change: "paused" } },
                  "sendWrapUp",
                ],
              },
              {
                guard: "isTimeBudgetSpent",
                target: "#goal.paused",
                actions: [
                  "closeTurn",
                  "recordSpend",
                  { type: "stopWith", params: { reason: "budget-time" } },
                  { type: "writeDocument", params: { change: "paused" } },
                  "sendWrapUp",
                ],
              },
              {
                guard: "isCostBudgetSpent",
                target: "#goal.paused",
                actions: [
                  "closeTurn",
                  "recordSpend",
                  { type: "stopWith", params: { reason: "budget-cost" } },
                  { type: "writeDocument", params: { change: "paused" } },
                  "sendWrapUp",
                ],
              },
              {
                guard: "isTokenBudgetSpent",
                target: "#goal.paused",
                actions: [
                  "closeTurn",
                  "recordSpend",
                  { type: "stopWith", params: { reason: "budget-tokens" } },
                  { type: "writeDocument", params: { change: "paused" } },
                  "sendWrapUp",
                ],
              },
              {
                target: "working",
                actions: ["closeTurn", "recordSpend", "openTurn", { type: "writeDocument", params: { change: "continued" } }, "sendBrief", "dropWakes"],
              },
            ],
            "loop.failed": [
              {
                guard: "isTransportFailureLimit",
                target: "#goal.paused",
                actions: [
                  "countFailure",
                  "closeTurn",
                  { type: "stopWith", params: { reason: "transport-failures" } },
                  { type: "writeDocument", params: { change: "paused" } },
                ],
              },
              { actions: ["countFailure", "scheduleDue", { type: "writeDocument", params: { change: "ledgered" } }] },
            ],
          },
        },
        // A non-forge agent spoke last: the loop never drives its turn, and waits for the next idle to look again.
        parked: {
          entry: ["releaseWakes", "dropWakes"],
          on: {
            "session.idle": { target: "debouncing", actions: "scheduleDue" },
            // Taken over from a driver that ended: the loop decides after a debounce, as after an idle.
            "goal.restored": { guard: "canTakeOver", target: "debouncing", actions: "scheduleDue" },
            "goal.revise": { actions: ["storeRevision", { type: "writeDocument", params: { change: "revised" } }] },
            "goal.complete": [
              { guard: "canComplete", target: "completing" },
              { guard: "canAudit", target: "auditing" },
            ],
            "goal.discard": { guard: "isByModel", target: "discarding", actions: "recordDiscard" },
          },
        },
        // The completion gate's second key: an auditor session Forge opened reviews the work, read-only. The goal's own
        // session waits in its goal_complete call meanwhile, so no idle of it is decided here.
        auditing: {
          tags: ["auditing"],
          // However the audit ends, its session's turn is over: stopped if it still runs (a pause, a discard, a takeover).
          exit: ["stopAuditor", "closeAuditSession"],
          on: {
            "goal.audit.opened": { guard: "hasNoAuditSession", actions: "recordAuditSession" },
            "goal.audit.tool": { guard: "canAuditorUse", actions: "permitTool" },
            "goal.review.write": { guard: "canRecordFinding", actions: "addFinding" },
            "goal.review.delete": { guard: "canDeleteFinding", actions: "removeFinding" },
            "goal.audit.done": [
              {
                guard: "isCleanAudit",
                target: "completing",
                actions: [
                  { type: "endAudit", params: { outcome: "clean" } },
                  { type: "writeDocument", params: { change: "audited" } },
                ],
              },
              {
                guard: "isFromAuditSession",
                target: "working",
                actions: [
                  { type: "endAudit", params: { outcome: "dirty" } },
                  { type: "writeDocument", params: { change: "audited" } },
                ],
              },
            ],
            "goal.audit.failed": {
              target: "working",
              actions: [
                { type: "endAudit", params: { outcome: "failed" } },
                { type: "writeDocument", params: { change: "audited" } },
              ],
            },
            // The process that ran the audit is gone: the audit ends as failed, and the goal works on.
            "goal.restored": {
              guard: "canTakeOver",
              target: "working",
              actions: [
                { type: "endAudit", params: { outcome: "failed" } },
                { type: "writeDocument", params: { change: "audited" } },
              ],
            },
          },
        },
        completing: {
          tags: ["awaiting-user"],
          entry: "openDialog",
          on: {
            "dialog.allow": { guard: "isAnswerToOpenDialog", target: "#goal.completed", actions: { type: "writeDocument", params: { change: "completed" } } },
            "dialog.reject": { guard: "isAnswerToOpenDialog", target: "working" },
            "goal.restored": { guard: "canTakeOver", target: "working" },
          },
        },
        discarding: {
          tags: ["awaiting-user"],
          entry: "openDialog",
          on: {
            "dialog.allow": { guard: "isAnswerToOpenDialog", target: "#goal.abandoned", actions: { type: "writeDocument", params: { change: "abandoned" } } },
            "dialog.reject": { guard: "isAnswerToOpenDialog", target: "working", actions: "dropReason" },
            "goal.restored": { guard: "canTakeOver", target: "working", actions: "dropReason" },
          },
        },
      },
    },
    paused: {
      tags: ["live"],
      // Every road into paused writes the document's status: whatever it said before is no longer pending.
      entry: "dropDocumentStatus",
      initial: "stopped",
      on: {
        "goal.discard": { guard: "isByUser", target: "abandoned", actions: ["recordDiscard", { type: "writeDocument", params: { change: "abandoned" } }] },
        "goal.checked": { actions: { type: "writeDocument", params: { change: "checked" } } },
        // A document that says active (a resume) or completed is held for the user's dialog; abandoned is followed;
        // anything else holds nothing.
        "goal.document.changed": [
          { guard: { type: "isDocumentPassingUserGate", params: { from: "paused" } }, actions: "holdDocumentStatus" },
          {
            guard: "isDocumentAbandoned",
            target: "#goal.abandoned",
            actions: ["recordDocumentDiscard", { type: "writeDocument", params: { change: "abandoned" } }],
          },
          { actions: "dropDocumentStatus" },
        ],
      },
      states: {
        stopped: {
          on: {
            "goal.resume": { guard: "canResume", target: "resuming", actions: "holdResume" },
            "goal.revise": { actions: ["storeRevision", { type: "writeDocument", params: { change: "revised" } }] },
            "goal.discard": { guard: "isByModel", target: "discarding", actions: "recordDiscard" },
          },
        },
        resuming: {
          tags: ["awaiting-user"],
          entry: "openDialog",
          on: {
            "dialog.allow": {
              guard: "isAnswerToOpenDialog",
              target: "#goal.active",
              actions: ["activate", { type: "writeDocument", params: { change: "resumed" } }],
            },
            "dialog.reject": { guard: "isAnswerToOpenDialog", target: "stopped", actions: "dropPending" },
            "goal.restored": { guard: "canTakeOver", target: "stopped", actions: "dropPending" },
          },
        },
        discarding: {
          tags: ["awaiting-user"],
          entry: "openDialog",
          on: {
            "dialog.allow": { guard: "isAnswerToOpenDialog", target: "#goal.abandoned", actions: { type: "writeDocument", params: { change: "abandoned" } } },
            "dialog.reject": { guard: "isAnswerToOpenDialog", target: "stopped", actions: "dropReason" },
            "goal.restored": { guard: "canTakeOver", target: "stopped", actions: "dropReason" },
          },
        },
      },
    },
    completed: { type: "final" },
    abandoned: { type: "final" },
    // A birth the gate refused: never created, no document written, nothing recorded.
    refused: { type: "final" },
  },
})

export type GoalMachine = typeof goalMachine
