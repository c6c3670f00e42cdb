// The goal's frontmatter: its schema (status and stop-reason values, the budgets' ranges) and field order, read,
// rendered and patched by the shared frontmatter codec of services/documents. Unknown keys are ignored on reading
// (as the plan's are) and left in place by a patch.

import * as z from "zod"
import { createFrontmatterCodec } from "../documents/frontmatter.codec"
import { GOAL_STOP_REASONS, type GoalStopReason } from "../../machines/goal/goal.gates"
import type { GoalMachineStatus as GoalStatus } from "../../machines/goal/goal.status"
import { MAX_MINUTES_CEILING, MAX_TURNS_CEILING } from "./goal.contract"

export const GOAL_STATUSES = ["queued", "active", "paused", "completed", "abandoned"] as const satisfies readonly GoalStatus[]
export type { GoalStatus, GoalStopReason }

export interface GoalFrontmatter {
  status: GoalStatus
  /** The contract's revision, from 1; a hand edit or an amendment bumps it. */
  revision: number
  /** The owner session; absent for a queued goal not yet bound. */
  session?: string
  max_turns: number
  max_minutes: number
  /** USD. */
  max_cost?: number
  max_tokens?: number
  turns_used: number
  /** When the goal was last armed (ISO). */
  armed_at?: string
  stop_reason?: GoalStopReason
  /** The blocker text, when stop_reason is blocker. */
  blocker?: string
  /** A goal born with `--audit`: where its audit stands, in words (Forge writes it; the goal's context decides). */
  audit?: string
  created: string
  updated: string
}

const FIELD_ORDER = [
  "status",
  "revision",
  "session",
  "max_turns",
  "max_minutes",
  "max_cost",
  "max_tokens",
  "turns_used",
  "armed_at",
  "stop_reason",
  "blocker",
  "audit",
  "created",
  "updated",
] as const satisfies readonly (keyof GoalFrontmatter)[]

/** The keys a patch may remove (set them to undefined). */
const REMOVABLE = ["session", "max_cost", "max_tokens", "armed_at", "stop_reason", "blocker"] as const satisfies readonly (keyof GoalFrontmatter)[]

const show = (value: unknown): string => (typeof value === "string" ? JSON.stringify(value) : String(value))

const missingOr = (key: string, otherwise: (input: unknown) => string) => (iss: { input: unknown }) =>
  iss.input === undefined ? `missing ${key}` : otherwise(iss.input)

/** A whole number in `min..max` (max optional). */
const wholeNumber = (key: string, min: number, max?: number) => {
  const range = max === undefined ? `of at least ${min}` : `from ${min} to ${max}`
  return z.number({ error: missingOr(key, (input) => `${key} must be a whole number ${range}, got ${show(input)}`) }).superRefine((n, ctx) => {
    if (!Number.isInteger(n) || n < min || (max !== undefined && n > max)) {
      ctx.addIssue({ code: "custom", message: `${key} must be a whole number ${range}, got ${show(n)}` })
    }
  })
}

const text = (key: string, singleLine: boolean) =>
  z
    .string({ error: missingOr(key, (input) => `${key} must be text, got ${show(input)}`) })
    .refine((s) => s.trim() !== "", { message: `${key} is empty` })
    .refine((s) => !singleLine || !/[\r\n\u2028\u2029]/.test(s), { message: `${key} must be a single line` })

const timestamp = (key: string) =>
  z.iso.datetime({
    offset: true,
    error: missingOr(key, (input) => `${key} ${show(input)} is not an ISO timestamp (e.g. 2026-12-02T10:00:00.000Z)`),
  })

const listed = (values: readonly string[]) => values.join(", ")

const frontmatterSchema = z.object({
  status: z.enum(GOAL_STATUSES, {
    error: (iss) =>
      iss.input === undefined ? `missing status (expected ${listed(GOAL_STATUSES)})` : `unknown status ${show(iss.input)} (expected ${listed(GOAL_STATUSES)})`,
  }),
  revision: wholeNumber("revision", 1),
  session: text("session", true).nullish(),
  max_turns: wholeNumber("max_turns", 1, MAX_TURNS_CEILING),
  max_minutes: wholeNumber("max_minutes", 1, MAX_MINUTES_CEILING),
  max_cost: z
    .number({ error: (iss) => `max_cost must be a positive amount in USD (e.g. 2.5), got ${show(iss.input)}` })
    .refine((n) => Number.isFinite(n) && n > 0, { error: (iss) => `max_cost must be a positive amount in USD (e.g. 2.5), got ${show(iss.input)}` })
    .nullish(),
  max_tokens: wholeNumber("max_tokens", 1).nullish(),
  turns_used: wholeNumber("turns_used", 0),
  armed_at: timestamp("armed_at").nullish(),
  stop_reason: z.enum(GOAL_STOP_REASONS, { error: (iss) => `unknown stop_reason ${show(iss.input)} (expected ${listed(GOAL_STOP_REASONS)})` }).nullish(),
  blocker: text("blocker", false).nullish(),
  audit: text("audit", true).nullish(),
  created: timestamp("created"),
  updated: timestamp("updated"),
})

type ParsedFields = z.infer<typeof frontmatterSchema>

/** The fields in the spec's order; an empty (null) optional key reads as absent. */
function toFrontmatter(fields: ParsedFields): GoalFrontmatter {
  const fm: Record<string, unknown> = {}
  for (const key of FIELD_ORDER) {
    const value = fields[key]
    if (value !== null && value !== undefined) fm[key] = value
  }
  return fm as unknown as GoalFrontmatter
}

/** Reads, renders and patches a goal document's frontmatter; messages name the key and its file line. */
export const goalFrontmatterCodec = createFrontmatterCodec<GoalFrontmatter>({
  kind: "goal",
  schema: frontmatterSchema.transform(toFrontmatter),
  order: FIELD_ORDER,
  removable: REMOVABLE,
})
