import { and, assertEvent, assign, not, setup } from "xstate"
import {
  type Attestation,
  type CheckLogLine,
  type CheckRun,
  GOAL_DEBOUNCE_MS,
  GOAL_LEASE_MS,
  type GoalLease,
  type GoalLimits,
  type GoalSpend,
  type GoalStopReason,
  type GoalTerms,
  NO_ACTIVITY,
  type TurnActivity,
  hasActivity,
  hasBudgetLeft,
  hasOneAttestationPerCriterion,
  isArmableContract,
  isCostBudgetSpent,
  isDrivenElsewhere,
  isDueAt,
  isEveryCheckPassed,
  isNoProgress,
  isTimeBudgetSpent,
  isTokenBudgetSpent,
  isTransportFailureLimit,
  isTurnBudgetSpent,
  resumedLimits,
} from "./goal.gates"

// The goal lifecycle: an objective the host verifies, driven by its own continuation loop. The top-level state is the
// document's status; `active`'s children are the loop (working → debouncing → a decision → working), so the loop's
// deadline and counters are snapshot data and a restart resumes it with its turns and time spent. Dialog states
// exist only while the user is asked: the dialog is the only road to active and to completed.

/** Bumped whenever a change would make an older persisted snapshot unfit for this definition. */
export const GOAL_MACHINE_VERSION = "1"

export interface GoalInput {
  /** Workspace-relative path of the goal document; the instance id. */
  goalPath: string
  /** The session that wrote the goal; a queued goal is bound to the session that arms it. */
  sessionId: string | null
  /** The contract as Forge last wrote it (the budgets are `limits`). */
  contract: GoalTerms
  limits: GoalLimits
  /** When the goal was written (epoch ms): the queue is served oldest first. */
  createdAt: number
  /** The document the goal starts with: written by the `writeDocument` effect, never kept in the context. */
  document: string
}

/** Who asks: the user's own /goal command acts directly, the model's request may need the user's dialog. */
export type GoalRequester = "user" | "model"

export interface GoalContext extends Omit<GoalInput, "document"> {
  revision: number
  turnsUsed: number
  armedAt: number | null
  stopReason: GoalStopReason | null
  blocker: string | null
  /** The loop's one deadline: when a debounced idle may be acted on. */
  dueAt: number | null
  /** A continuation turn was sent and has not been entered in the Turn Ledger yet. */
  turnOpen: boolean
  /** What the open continuation turn has done so far. */
  activity: TurnActivity
  /** Continuation turns in a row that did nothing. */
  idleStreak: number
  transportFailures: number
  /** The last turn entered in the ledger, for the document write that enters it. */
  lastTurn: { turn: number; activity: TurnActivity } | null
  spend: GoalSpend
  /** The session an arm or resume dialog would bind, and what a resume adds. */
  pending: { sessionId: string; limits: GoalLimits } | null
  /** Why the goal was discarded. */
  reason: string | null
  /** The process that sent the last brief: the one driver of the loop while it lives and the lease runs. */
  lease: GoalLease | null
  /** Job wakes due on this idle: they ride with the next brief (one prompt per idle), or go out when none follows. */
  wakes: string[]
}

export type GoalEvent =
  /** Arm a queued goal for a session; `draftPlan` is the plan lifecycle's answer for that session. */
  | { type: "goal.arm"; sessionId: string; draftPlan: boolean }
  | { type: "goal.resume"; sessionId: string; draftPlan: boolean; now: number; addTurns: number; addMinutes: number }
  | { type: "dialog.allow"; now: number }
  | { type: "dialog.reject" }
  /** A new revision of the contract; `document` is the whole new text, written by the `writeDocument` effect. */
  | { type: "goal.revise"; contract: GoalTerms; limits: GoalLimits; document: string }
  | { type: "goal.pause"; by: GoalRequester; blocker?: string }
  | { type: "goal.discard"; by: GoalRequester; reason?: string }
  /** Check results the host ran (advisory or at the gate), for the Check Log. */
  | { type: "goal.checked"; entries: CheckLogLine[] }
  /** Completion: the host's fresh run of every check, and the model's attestations. */
  | { type: "goal.complete"; run: { revision: number; results: CheckRun[] }; attestations: Attestation[] }
  | { type: "goal.activity"; kind: keyof TurnActivity }
  /** The session went idle in the process `driver`: that process drives this idle's decision (it holds the lease). */
  | { type: "session.idle"; now: number; driver: string }
  | { type: "session.busy" }
  /**
   * The debounce deadline passed: the facts the loop decides on, gathered by the harness at that moment. `driver` is
   * the deciding process, `holderAlive` whether the lease's holder still runs.
   */
  | { type: "loop.due"; now: number; speaker: "forge" | "other"; draftPlan: boolean; spend: GoalSpend; driver: string; holderAlive: boolean }
  /** A job's wake, due while the session is idle: the next brief carries it instead of racing it. */
  | { type: "job.wake"; text: string }
  /** The continuation brief could not be sent. */
  | { type: "loop.failed"; now: number; error: string }

export type GoalTag = "live" | "driving" | "awaiting-user" | "due"

/** What a step changes in the goal's document, for the `writeDocument` effect. */
export type GoalDocumentChange = "created" | "armed" | "revised" | "paused" | "resumed" | "checked" | "completed" | "abandoned" | "continued" | "ledgered"

export const goalMachine = setup({
  types: {
    context: {} as GoalContext,
    events: {} as GoalEvent,
    input: {} as GoalInput,
    tags: {} as GoalTag,
  },
  guards: {
    isArmable: ({ context }) => isArmableContract({ checkCount: context.contract.checks.length }),
    hasDraftPlan: ({ event }) => {
      assertEvent(event, ["goal.arm", "goal.resume", "loop.due"])
      return event.draftPlan
    },
    canArm: and(["isArmable", not("hasDraftPlan")]),
    hasResumeBudget: ({ context, event }) => {
      assertEvent(event, "goal.resume")
      const limits = resumedLimits({ limits: context.limits, addTurns: event.addTurns, addMinutes: event.addMinutes })
      return hasBudgetLeft({ now: event.now, armedAt: context.armedAt, turnsUsed: context.turnsUsed, limits })
    },
    canResume: and(["isArmable", not("hasDraftPlan"), "hasResumeBudget"]),
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
    canComplete: and(["isEveryCheckPassed", "hasOneAttestationPerCriterion"]),
    isDue: ({ context, event }) => {
      assertEvent(event, "loop.due")
      return isDueAt({ now: event.now, dueAt: context.dueAt })
    },
    isNotDue: not("isDue"),
    isDrivenElsewhere: ({ context, event }) => {
      assertEvent(event, "loop.due")
      return isDrivenElsewhere({ lease: context.lease, driver: event.driver, holderAlive: event.holderAlive, now: event.now })
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
  },
  actions: {
    holdArm: assign(({ context, event }) => {
      assertEvent(event, "goal.arm")
      return { pending: { sessionId: event.sessionId, limits: context.limits } }
    }),
    holdResume: assign(({ context, event }) => {
      assertEvent(event, "goal.resume")
      return {
        pending: { sessionId: event.sessionId, limits: resumedLimits({ limits: context.limits, addTurns: event.addTurns, addMinutes: event.addMinutes }) },
      }
    }),
    dropPending: assign({ pending: null }),
    // Entering active binds the owner, starts the clock once (a resume keeps the time already spent) and clears the stop.
    activate: assign(({ context, event }) => {
      assertEvent(event, "dialog.allow")
      return {
        sessionId: context.pending?.sessionId ?? context.sessionId,
        limits: context.pending?.limits ?? context.limits,
        armedAt: context.armedAt ?? event.now,
        pending: null,
        stopReason: null,
        blocker: null,
        dueAt: null,
        turnOpen: false,
        activity: NO_ACTIVITY,
        idleStreak: 0,
        transportFailures: 0,
        lease: null,
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
    dropReason: assign({ reason: null }),
    countActivity: assign(({ context, event }) => {
      assertEvent(event, ["goal.activity", "goal.checked"])
      const kind = event.type === "goal.checked" ? "checks" : event.kind
      return { activity: { ...context.activity, [kind]: context.activity[kind] + 1 } }
    }),
    scheduleDue: assign(({ event }) => {
      assertEvent(event, ["session.idle", "loop.failed"])
      return { dueAt: event.now + GOAL_DEBOUNCE_MS }
    }),
    // The process where the session's turn ran (it saw the idle) drives the decision: a user who moved to another
    // opencode process moves the loop with them, and no other process decides the same idle.
    holdLease: assign(({ event }) => {
      assertEvent(event, "session.idle")
      return { lease: { holder: event.driver, until: event.now + GOAL_LEASE_MS } }
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
    takeLease: assign(({ event }) => {
      assertEvent(event, "loop.due")
      return { lease: { holder: event.driver, until: event.now + GOAL_LEASE_MS } }
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
    // Wakes held for a brief that will not come (the loop parks or stops): sent on their own, as the job would have.
    releaseWakes: () => {
      throw new Error("goal action releaseWakes not provided")
    },
  },
}).createMachine({
  id: "goal",
  version: GOAL_MACHINE_VERSION,
  context: ({ input: { document: _document, ...input } }) => ({
    ...input,
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
    lease: null,
    wakes: [],
  }),
  initial: "queued",
  states: {
    queued: {
      // Only a new goal enters queued from outside: a restore or a reconcile resolves its state without entering it.
      entry: { type: "writeDocument", params: { change: "created" } },
      initial: "waiting",
      on: {
        "goal.discard": { guard: "isByUser", target: "abandoned", actions: ["recordDiscard", { type: "writeDocument", params: { change: "abandoned" } }] },
        "goal.checked": { actions: { type: "writeDocument", params: { change: "checked" } } },
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
          on: {
            "dialog.allow": { target: "#goal.active", actions: ["activate", { type: "writeDocument", params: { change: "armed" } }] },
            "dialog.reject": { target: "waiting", actions: "dropPending" },
          },
        },
        discarding: {
          tags: ["awaiting-user"],
          on: {
            "dialog.allow": { target: "#goal.abandoned", actions: { type: "writeDocument", params: { change: "abandoned" } } },
            "dialog.reject": { target: "waiting", actions: "dropReason" },
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
      },
      states: {
        working: {
          on: {
            "job.wake": { actions: "holdWake" },
            "session.idle": { target: "debouncing", actions: ["scheduleDue", "holdLease"] },
            "goal.revise": { actions: ["storeRevision", { type: "writeDocument", params: { change: "revised" } }] },
            "goal.complete": { guard: "canComplete", target: "completing" },
            "goal.discard": { guard: "isByModel", target: "discarding", actions: "recordDiscard" },
          },
        },
        debouncing: {
          tags: ["due"],
          on: {
            "session.idle": { actions: ["scheduleDue", "holdLease"] },
            "job.wake": { actions: "holdWake" },
            "session.busy": { target: "working", actions: "clearDue" },
            "goal.revise": { target: "working", actions: ["clearDue", "storeRevision", { type: "writeDocument", params: { change: "revised" } }] },
            "goal.complete": { guard: "canComplete", target: "completing", actions: "clearDue" },
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
                actions: [
                  "closeTurn",
                  "recordSpend",
                  "openTurn",
                  "takeLease",
                  { type: "writeDocument", params: { change: "continued" } },
                  "sendBrief",
                  "dropWakes",
                ],
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
            "session.idle": { target: "debouncing", actions: ["scheduleDue", "holdLease"] },
            "goal.revise": { actions: ["storeRevision", { type: "writeDocument", params: { change: "revised" } }] },
            "goal.complete": { guard: "canComplete", target: "completing" },
            "goal.discard": { guard: "isByModel", target: "discarding", actions: "recordDiscard" },
          },
        },
        completing: {
          tags: ["awaiting-user"],
          on: {
            "dialog.allow": { target: "#goal.completed", actions: { type: "writeDocument", params: { change: "completed" } } },
            "dialog.reject": { target: "working" },
          },
        },
        discarding: {
          tags: ["awaiting-user"],
          on: {
            "dialog.allow": { target: "#goal.abandoned", actions: { type: "writeDocument", params: { change: "abandoned" } } },
            "dialog.reject": { target: "working", actions: "dropReason" },
          },
        },
      },
    },
    paused: {
      tags: ["live"],
      initial: "stopped",
      on: {
        "goal.discard": { guard: "isByUser", target: "abandoned", actions: ["recordDiscard", { type: "writeDocument", params: { change: "abandoned" } }] },
        "goal.checked": { actions: { type: "writeDocument", params: { change: "checked" } } },
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
          on: {
            "dialog.allow": { target: "#goal.active", actions: ["activate", { type: "writeDocument", params: { change: "resumed" } }] },
            "dialog.reject": { target: "stopped", actions: "dropPending" },
          },
        },
        discarding: {
          tags: ["awaiting-user"],
          on: {
            "dialog.allow": { target: "#goal.abandoned", actions: { type: "writeDocument", params: { change: "abandoned" } } },
            "dialog.reject": { target: "stopped", actions: "dropReason" },
          },
        },
      },
    },
    completed: { type: "final" },
    abandoned: { type: "final" },
  },
})

export type GoalMachine = typeof goalMachine
