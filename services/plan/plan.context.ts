import * as z from "zod"
import type { PlanContext } from "../../machines/plan.machine"

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
}) satisfies z.ZodType<PlanContext>

/** Null when `context` fits the plan machine, else what is wrong with it. */
export function planContextProblem(context: unknown): string | null {
  const parsed = planContextSchema.safeParse(context)
  return parsed.success ? null : `persisted context does not fit: ${z.prettifyError(parsed.error).replace(/\n/g, " ")}`
}
