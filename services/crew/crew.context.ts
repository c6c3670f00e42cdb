import * as z from "zod"
import type { CrewContext } from "../../machines/crew.machine"

// The shape a persisted crew context must have before an actor is started from it: a row that does not fit (a
// damaged or hand-edited database) is refused at restore and named, never run.

const verdict = z.object({
  subtask: z.string(),
  verdict: z.enum(["PASS", "FAIL"]),
  evidence: z.string(),
  failures: z.array(z.string()),
})

export const crewContextSchema = z.object({
  crewPath: z.string().min(1),
  sessionId: z.string().min(1),
  objective: z.string(),
  subtasks: z.array(z.object({ title: z.string().min(1), agent: z.string().min(1).nullable() })).min(1),
  lineage: z.string().min(1).nullable(),
  bornArmed: z.boolean(),
  createdAt: z.number(),
  pendingReport: z.array(verdict).nullable(),
  pendingReason: z.string().nullable(),
  report: z.array(verdict).nullable(),
  reason: z.string().nullable(),
}) satisfies z.ZodType<CrewContext>

/** Null when `context` fits the crew machine, else what is wrong with it. */
export function crewContextProblem(context: unknown): string | null {
  const parsed = crewContextSchema.safeParse(context)
  return parsed.success ? null : `persisted context does not fit: ${z.prettifyError(parsed.error).replace(/\n/g, " ")}`
}
