import * as z from "zod"
import { GOAL_STOP_REASONS } from "../../machines/goal.gates"
import type { GoalContext } from "../../machines/goal.machine"

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
  lease: z.object({ holder: z.string().min(1), until: z.number() }).nullable(),
  wakes: z.array(z.string()),
}) satisfies z.ZodType<GoalContext>

/** Null when `context` fits the goal machine, else what is wrong with it. */
export function goalContextProblem(context: unknown): string | null {
  const parsed = goalContextSchema.safeParse(context)
  return parsed.success ? null : `persisted context does not fit: ${z.prettifyError(parsed.error).replace(/\n/g, " ")}`
}
