// The plan's frontmatter: its schema (status values, the successor rule) and field order, read, rendered and patched
// by the shared frontmatter codec of services/documents.

import * as z from "zod"
import { createFrontmatterCodec } from "../documents/frontmatter.codec"
import type { FrontmatterBlock } from "../documents/frontmatter.block"
import { PlanInputError } from "./plan.errors"
import { PLAN_STATUSES, type PlanFrontmatter, type PlanStatus } from "./plan.types"

const STATUS_LIST = PLAN_STATUSES.join(", ")
const FIELD_ORDER = ["status", "title", "created", "updated", "session", "successor"] as const
/** The keys a patch may remove. */
const REMOVABLE = ["session", "successor"] as const

const show = (value: unknown): string => (typeof value === "string" ? JSON.stringify(value) : String(value))

const singleLineText = (key: string, required: boolean) =>
  z
    .string({
      error: (iss) => (iss.input === undefined && required ? `missing ${key}` : `${key} must be text, got ${show(iss.input)}`),
    })
    .refine((s) => s.trim() !== "", { message: `${key} is empty` })
    .refine((s) => !/[\r\n\u2028\u2029]/.test(s), { message: `${key} must be a single line` })

const timestamp = (key: string) =>
  z.iso.datetime({
    offset: true,
    error: (iss) => (iss.input === undefined ? `missing ${key}` : `${key} ${show(iss.input)} is not an ISO timestamp (e.g. 2026-11-30T03:00:00.000Z)`),
  })

const frontmatterSchema = z
  .object({
    status: z.enum(PLAN_STATUSES as readonly [PlanStatus, ...PlanStatus[]], {
      error: (iss) => (iss.input === undefined ? `missing status (expected ${STATUS_LIST})` : `unknown status ${show(iss.input)} (expected ${STATUS_LIST})`),
    }),
    title: singleLineText("title", true),
    created: timestamp("created"),
    // Hand-written plans may omit `updated`; it then reads as `created`.
    updated: timestamp("updated").optional(),
    session: singleLineText("session", false).nullish(),
    successor: singleLineText("successor", false).nullish(),
  })
  .superRefine((fm, ctx) => {
    const hasSuccessor = typeof fm.successor === "string"
    if (fm.status === "superseded" && !hasSuccessor) {
      ctx.addIssue({ code: "custom", path: ["status"], message: "status is superseded but no successor is given" })
    }
    if (fm.status !== "superseded" && hasSuccessor) {
      ctx.addIssue({
        code: "custom",
        path: ["successor"],
        message: `successor is only allowed when status is superseded (status is ${fm.status})`,
      })
    }
  })

type ParsedFields = z.infer<typeof frontmatterSchema>

function toFrontmatter(fields: ParsedFields): PlanFrontmatter {
  const fm: PlanFrontmatter = {
    status: fields.status,
    title: fields.title,
    created: fields.created,
    updated: fields.updated ?? fields.created,
  }
  if (typeof fields.session === "string") fm.session = fields.session
  if (typeof fields.successor === "string") fm.successor = fields.successor
  return fm
}

const codec = createFrontmatterCodec<PlanFrontmatter>({
  kind: "plan",
  schema: frontmatterSchema.transform(toFrontmatter),
  order: FIELD_ORDER,
  removable: REMOVABLE,
})

/** Reads and validates the frontmatter of a located block. Throws PlanDocumentError naming the file and line. */
export function readFrontmatter(block: FrontmatterBlock, source: string): PlanFrontmatter {
  return codec.read(block, source)
}

/** The YAML between the delimiters, keys in canonical order. Throws PlanInputError for an invalid frontmatter. */
export function renderFrontmatter(fm: PlanFrontmatter): string {
  return codec.render(fm)
}

/**
 * Applies `patch` to the frontmatter key by key: a present key's lines are rewritten, an absent key is appended
 * before the closing delimiter, and `session` / `successor` set to undefined are removed. Nothing outside the
 * patched entries changes. The result is validated as a whole (e.g. superseded needs a successor).
 */
export function patchFrontmatter(text: string, source: string, patch: Partial<PlanFrontmatter>): string {
  // Every plan value is text; a caller that skipped the types hears so before any byte moves.
  for (const key of FIELD_ORDER) {
    if (!Object.hasOwn(patch, key)) continue
    const value: unknown = patch[key]
    if (value === undefined && !(REMOVABLE as readonly string[]).includes(key)) {
      throw new PlanInputError(`frontmatter key "${key}" is required and cannot be removed`)
    }
    if (value !== undefined && typeof value !== "string") {
      throw new PlanInputError(`frontmatter key "${key}" must be a string`)
    }
  }
  return codec.patch(text, source, patch)
}
