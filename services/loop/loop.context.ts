import * as z from "zod"
import type { LoopContext, LoopPassContext } from "../../machines/loop/loop.machine"

// The shape a persisted loop context must have before an actor is started from it: a row that does not fit (a damaged
// or hand-edited database) is refused at restore and named, never run. The handoff schemas are the tools' own.

const text = z.string().trim().min(1)

export const loopChangeSchema = z.strictObject({ summary: text, reason: text })
export const loopDeviationSchema = z.strictObject({ planItem: text, actual: text, reason: text })
export const loopVerificationSchema = z.strictObject({
  command: text,
  cwd: z.string().trim(),
  outcome: z.enum(["pass", "fail", "not-run"]),
  changedAfter: z.boolean(),
})
export const loopFindingSchema = z.strictObject({
  severity: z.enum(["bug", "warning"]),
  file: text.nullable(),
  line: z.number().int().positive().nullable(),
  description: text,
})
export const loopAuditSummarySchema = z.strictObject({ done: z.array(text), deviations: z.array(text), followUps: z.array(text) })

export const loopHandoffSchema = z.discriminatedUnion("role", [
  z.strictObject({
    role: z.literal("coder"),
    changes: z.array(loopChangeSchema),
    deviations: z.array(loopDeviationSchema),
    verification: z.array(loopVerificationSchema),
    notes: z.string().nullable(),
  }),
  z.strictObject({
    role: z.literal("auditor"),
    findings: z.array(loopFindingSchema),
    summary: loopAuditSummarySchema.nullable(),
    notes: z.string().nullable(),
  }),
  z.strictObject({
    role: z.literal("post_action"),
    outcome: z.enum(["completed", "completed_with_issues", "failed"]),
    steps: z.array(text),
    followUps: z.array(text),
    notes: z.string().nullable(),
  }),
])

const openFindingSchema = z.strictObject({
  section: z.number().int().min(-1),
  file: z.string(),
  line: z.number().int().nonnegative(),
  severity: z.enum(["bug", "warning"]),
  description: text,
  scenario: z.string().nullable(),
})

const loopPhaseSchema = z.enum(["coding", "auditing", "final_auditing", "final_audit_fix", "post_action"])

const section = z.strictObject({ title: text, content: text, status: z.enum(["pending", "done"]) })

export const loopContextSchema = z.strictObject({
  loopName: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
  title: z.string(),
  hostSession: z.string().min(1),
  planPath: z.string().min(1).nullable(),
  planStatus: z.string().nullable(),
  askedFrom: z.string().nullable(),
  worktree: z.strictObject({ dir: z.string().min(1), branch: z.string().min(1), base: z.string().min(1) }),
  maxIterations: z.number().int().positive(),
  sandbox: z.strictObject({ mode: z.enum(["bwrap", "off"]), network: z.boolean(), problem: z.string().nullable() }),
  startedAt: z.number(),
  sections: z.array(section).min(1),
  sectionIndex: z.number().int().nonnegative(),
  session: z.string().min(1).nullable(),
  sessions: z.array(z.string().min(1)),
  roles: z.record(z.string(), z.enum(["coder", "auditor", "post_action"])),
  driver: z.string().min(1).nullable(),
  iteration: z.number().int().nonnegative(),
  phase: loopPhaseSchema,
  restarts: z.array(z.strictObject({ at: z.number(), from: z.string().min(1), reason: z.string().nullable(), passes: z.number().int().nonnegative() })),
  last: loopHandoffSchema.nullable(),
  amendments: z.array(
    z.strictObject({
      at: z.number(),
      section: z.number().int().positive(),
      rationale: z.string(),
      before: z.array(z.string()),
      after: z.array(z.string()),
      was: z.array(z.strictObject({ title: z.string(), content: z.string() })).optional(),
      now: z.array(z.strictObject({ title: z.string(), content: z.string() })).optional(),
    }),
  ),
  findings: z.array(openFindingSchema),
  auditBefore: z.array(openFindingSchema),
  recurring: z.record(z.string(), z.number().int().positive()),
  reason: z.string().nullable(),
}) satisfies z.ZodType<LoopContext>

/** A pass's own context (the pass machine's, invoked by the phase as `pass`). */
export const loopPassContextSchema = z.strictObject({
  phase: loopPhaseSchema,
  iteration: z.number().int().positive(),
  maxIterations: z.number().int().positive(),
  pending: loopHandoffSchema.nullable(),
  nudges: z.number().int().nonnegative(),
  errors: z.number().int().nonnegative(),
}) satisfies z.ZodType<LoopPassContext>

/** Null when the persisted context of the loop's pass fits the pass machine, else what is wrong with it. */
export function loopPassContextProblem(childId: string, context: unknown): string | null {
  if (childId !== "pass") return `the loop invokes only its pass, not ${childId}`
  const parsed = loopPassContextSchema.safeParse(context)
  return parsed.success ? null : `persisted pass context does not fit: ${z.prettifyError(parsed.error).replace(/\n/g, " ")}`
}

/** Null when `context` fits the loop machine, else what is wrong with it. */
export function loopContextProblem(context: unknown): string | null {
  const parsed = loopContextSchema.safeParse(context)
  if (!parsed.success) return `persisted context does not fit: ${z.prettifyError(parsed.error).replace(/\n/g, " ")}`
  return parsed.data.sectionIndex < parsed.data.sections.length ? null : "persisted context does not fit: its section index is past its sections"
}
