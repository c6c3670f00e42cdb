import * as z from "zod"
import { GOAL_DEBOUNCE_MS, GOAL_STOP_REASONS } from "../../machines/goal/goal.gates"
import { GOAL_MACHINE_VERSION, type GoalContext } from "../../machines/goal/goal.machine"
import type { PersistedShape } from "../lifecycle/lifecycle.definition"

// The shape a persisted goal context must have before an actor is started from it: a row that does not fit (a damaged
// or hand-edited database) is refused at restore, and the goal is rebuilt from its document instead.

const limits = z.object({
  maxTurns: z.number().int().positive(),
  maxMinutes: z.number().int().positive(),
  maxCost: z.number().positive().nullable(),
  maxTokens: z.number().int().positive().nullable(),
})
const activity = z.object({ writes: z.number().int().min(0), shell: z.number().int().min(0), checks: z.number().int().min(0), ticks: z.number().int().min(0) })
const stopReason = z.enum(GOAL_STOP_REASONS)
const finding = z.object({
  file: z.string().min(1),
  line: z.number().int().positive(),
  severity: z.enum(["bug", "warning"]),
  description: z.string(),
  scenario: z.string().nullable(),
  session: z.string().min(1),
})
const audit = z.object({
  base: z.string().min(1).nullable(),
  session: z.string().min(1).nullable(),
  sessions: z.array(z.string().min(1)),
  findings: z.array(finding),
  rounds: z.number().int().min(0),
  last: z.object({ outcome: z.enum(["clean", "dirty", "failed"]), summary: z.string(), at: z.number() }).nullable(),
})
const birth = z.object({ armAsked: z.boolean(), liveGoal: z.object({ path: z.string().min(1), status: z.enum(["active", "paused"]) }).nullable() })

export const goalContextSchema = z.object({
  goalPath: z.string().min(1),
  sessionId: z.string().min(1).nullable(),
  contract: z.object({
    objective: z.string(),
    success: z.array(z.string()),
    checks: z.array(
      z.discriminatedUnion("kind", [
        z.object({ kind: z.literal("command"), command: z.string(), timeoutS: z.number().int().positive() }),
        z.object({ kind: z.literal("contains"), file: z.string(), text: z.string() }),
      ]),
    ),
    constraints: z.array(z.string()),
    nonGoals: z.array(z.string()),
  }),
  limits,
  createdAt: z.number(),
  debounceMs: z.number().int().positive(),
  revision: z.number().int().positive(),
  turnsUsed: z.number().int().min(0),
  armedAt: z.number().nullable(),
  stopReason: stopReason.nullable(),
  blocker: z.string().nullable(),
  dueAt: z.number().nullable(),
  turnOpen: z.boolean(),
  activity,
  idleStreak: z.number().int().min(0),
  transportFailures: z.number().int().min(0),
  lastTurn: z.object({ turn: z.number().int().min(0), activity }).nullable(),
  spend: z.object({ cost: z.number().min(0), tokens: z.number().min(0) }),
  pending: z.object({ sessionId: z.string().min(1), limits }).nullable(),
  reason: z.string().nullable(),
  wakes: z.array(z.string()),
  pendingDocument: z.enum(["queued", "active", "paused", "completed", "abandoned"]).nullable(),
  birth: birth.nullable(),
  dialog: z.number().int().min(0),
  audit: audit.nullable(),
}) satisfies z.ZodType<GoalContext>

/** Null when `context` fits the goal machine, else what is wrong with it. */
export function goalContextProblem(context: unknown): string | null {
  const parsed = goalContextSchema.safeParse(context)
  return parsed.success ? null : `persisted context does not fit: ${z.prettifyError(parsed.error).replace(/\n/g, " ")}`
}

/**
 * Records written before a goal carried its own debounce have none: they take the default they were debounced with
 * then; records written before document changes were held have no pending one; records written before the birth
 * gate's facts were kept have none (null: past its birth, no gate reads them again); records written before dialogs
 * were numbered have counted none (0: the next dialog opened is 1). Those were additive fields, so they kept version 1.
 * Version 2 adds the audit (`/goal … --audit`) and its state, `active.auditing`, which an older Forge cannot read:
 * a version 1 goal was born without an audit (null). A record of any other version does not fit, as before.
 */
export function upgradeGoalRecord(persisted: PersistedShape, fromVersion: string): PersistedShape {
  if (fromVersion !== "1" && fromVersion !== GOAL_MACHINE_VERSION) throw new Error(`no upgrade from goal machine version ${fromVersion}`)
  const context = persisted.context
  if (context === null || typeof context !== "object" || Array.isArray(context)) throw new Error("its context is not an object")
  // The lease a goal carried before the driver claim replaced it: who drives is the claim's now. Records written
  // before document changes were held have nothing pending.
  const { lease: _lease, ...rest } = context as Record<string, unknown>
  if (["debounceMs", "pendingDocument", "birth", "dialog", "audit"].every((key) => key in rest) && !("lease" in context)) return persisted
  return { value: persisted.value, context: { debounceMs: GOAL_DEBOUNCE_MS, pendingDocument: null, birth: null, dialog: 0, audit: null, ...rest } }
}
