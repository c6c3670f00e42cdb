import * as z from "zod"
import { CREW_MACHINE_VERSION, type CrewContext } from "../../machines/crew/crew.machine"
import { CREW_STATUSES } from "../../machines/crew/crew.status"
import type { PersistedShape } from "../lifecycle/lifecycle.definition"

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
  subtasks: z.array(z.object({ title: z.string().min(1), agent: z.string().min(1).nullable(), files: z.array(z.string()) })).min(1),
  lineage: z.string().min(1).nullable(),
  registration: z.object({ execution: z.enum(["waves", "goal"]).nullable(), governed: z.boolean() }),
  birth: z
    .object({
      liveCrew: z.object({ crewPath: z.string().min(1), status: z.enum(CREW_STATUSES) }).nullable(),
      workers: z.object({ dispatchable: z.number().int().min(0), findings: z.array(z.string()) }),
    })
    .nullable(),
  createdAt: z.number(),
  pendingReport: z.array(verdict).nullable(),
  pendingReason: z.string().nullable(),
  report: z.array(verdict).nullable(),
  reason: z.string().nullable(),
  pendingDocument: z.enum(CREW_STATUSES).nullable(),
  dialog: z.number().int().min(0),
}) satisfies z.ZodType<CrewContext>

/** Null when `context` fits the crew machine, else what is wrong with it. */
export function crewContextProblem(context: unknown): string | null {
  const parsed = crewContextSchema.safeParse(context)
  return parsed.success ? null : `persisted context does not fit: ${z.prettifyError(parsed.error).replace(/\n/g, " ")}`
}

/**
 * Version 1 records said only whether the crew was born armed (registered with execution "waves" under the session's
 * goal); version 2 keeps the registration the birth gate decided on. A live crew is past that gate either way.
 */
export function upgradeCrewRecord(persisted: PersistedShape, fromVersion: string): PersistedShape {
  const context = persisted.context
  const isObject = context !== null && typeof context === "object" && !Array.isArray(context)
  // Additive fields, so the version stays: records written before record changes were held have nothing pending, and
  // records written before the birth facts were kept have none (they are past their birth), and records written
  // before dialogs were numbered have opened none.
  if (fromVersion === CREW_MACHINE_VERSION)
    return !isObject || ("pendingDocument" in context && "birth" in context && "dialog" in context && everySubtaskOwns(context))
      ? persisted
      : { value: persisted.value, context: withAdditiveFields(context) }
  if (fromVersion !== "1") throw new Error(`no upgrade from crew machine version ${fromVersion}`)
  if (!isObject) throw new Error("its context is not an object")
  const { bornArmed, ...rest } = context as { bornArmed?: unknown }
  const armed = bornArmed === true
  return { value: persisted.value, context: { ...withAdditiveFields(rest), registration: { execution: armed ? "waves" : null, governed: armed } } }
}

function withAdditiveFields(context: object): object {
  const subtasks = (context as { subtasks?: unknown }).subtasks
  // Subtasks declared before they owned files own none.
  const owning = Array.isArray(subtasks)
    ? subtasks.map((s: unknown) => (s !== null && typeof s === "object" && !("files" in s) ? { ...s, files: [] } : s))
    : subtasks
  return { pendingDocument: null, birth: null, dialog: 0, ...context, ...(Array.isArray(subtasks) ? { subtasks: owning } : {}) }
}

function everySubtaskOwns(context: object): boolean {
  const subtasks = (context as { subtasks?: unknown }).subtasks
  return !Array.isArray(subtasks) || subtasks.every((s: unknown) => s === null || typeof s !== "object" || "files" in s)
}
