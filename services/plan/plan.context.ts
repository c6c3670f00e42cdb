import * as z from "zod"
import { PLAN_MACHINE_VERSION, type PlanContext } from "../../machines/plan/plan.machine"
import type { PersistedShape } from "../lifecycle/lifecycle.definition"

// The shape a persisted plan context must have before an actor is started from it: a row that does not fit (a
// damaged or hand-edited database) is refused at restore, and the plan is rebuilt from its document instead.

const taskState = z.object({ number: z.number().int().positive(), ticked: z.boolean() })
const check = z.object({ criterion: z.string(), pass: z.boolean(), evidence: z.string() })

export const planContextSchema = z.object({
  planPath: z.string().min(1),
  sessionId: z.string().min(1).nullable(),
  tasks: z.array(taskState),
  criteria: z.array(z.string()),
  pendingChecks: z.array(check).nullable(),
  // Snapshots written before the discard dialog existed have none; the machine reads it as null.
  pendingDiscard: z.object({ reason: z.string().nullable(), successor: z.string().nullable() }).nullable().default(null),
  reason: z.string().nullable(),
  successor: z.string().nullable(),
  // Snapshots written before document changes were held have none; the machine reads it as null.
  pendingDocument: z.enum(["draft", "approved", "done", "abandoned", "superseded"]).nullable().default(null),
  dialog: z.number().int().min(0),
}) satisfies z.ZodType<PlanContext>

/** Null when `context` fits the plan machine, else what is wrong with it. */
export function planContextProblem(context: unknown): string | null {
  const parsed = planContextSchema.safeParse(context)
  return parsed.success ? null : `persisted context does not fit: ${z.prettifyError(parsed.error).replace(/\n/g, " ")}`
}

/**
 * Records written before dialogs were numbered have none: they count from 0, so the next dialog they open is 1. An
 * additive field, so the version stays (an older Forge on the same workspace still reads newer records); a record of
 * any other version does not fit, as before.
 */
export function upgradePlanRecord(persisted: PersistedShape, fromVersion: string): PersistedShape {
  if (fromVersion !== PLAN_MACHINE_VERSION) throw new Error(`no upgrade from plan machine version ${fromVersion}`)
  const context = persisted.context
  if (context === null || typeof context !== "object" || Array.isArray(context) || "dialog" in context) return persisted
  return { value: persisted.value, context: { dialog: 0, ...context } }
}
