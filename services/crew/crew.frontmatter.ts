// The crew record's frontmatter: its schema and field order, read, rendered and patched by the shared frontmatter
// codec of services/documents. The record is history, not a resume mechanism: the database holds the crew's state,
// and the frontmatter mirrors its status for a reader.

import * as z from "zod"
import type { CrewStatus } from "../../machines/crew/crew.status"
import { createFrontmatterCodec } from "../documents/frontmatter.codec"

export const CREW_STATUSES = ["pending", "executing", "closed", "abandoned", "converted"] as const satisfies readonly CrewStatus[]

export interface CrewFrontmatter {
  status: CrewStatus
  /** The session that registered the crew. */
  session: string
  /** The plan (or other artifact) the crew's macro contract descends from. */
  lineage?: string
  /** How the user chose to run it: supervised waves, or converted to a goal. */
  execution?: "waves" | "goal"
  created: string
  updated: string
}

const FIELD_ORDER = ["status", "session", "lineage", "execution", "created", "updated"] as const satisfies readonly (keyof CrewFrontmatter)[]

const show = (value: unknown): string => (typeof value === "string" ? JSON.stringify(value) : String(value))

const line = (key: string) =>
  z
    .string({ error: (iss) => (iss.input === undefined ? `missing ${key}` : `${key} must be text, got ${show(iss.input)}`) })
    .refine((s) => s.trim() !== "" && !/[\r\n]/.test(s), { message: `${key} must be one non-empty line` })

const timestamp = (key: string) =>
  z.iso.datetime({ offset: true, error: (iss) => (iss.input === undefined ? `missing ${key}` : `${key} ${show(iss.input)} is not an ISO timestamp`) })

const schema = z
  .object({
    status: z.enum(CREW_STATUSES, { error: (iss) => `unknown status ${show(iss.input)} (expected ${CREW_STATUSES.join(", ")})` }),
    session: line("session"),
    lineage: line("lineage").nullish(),
    execution: z.enum(["waves", "goal"], { error: (iss) => `unknown execution ${show(iss.input)} (expected waves or goal)` }).nullish(),
    created: timestamp("created"),
    updated: timestamp("updated"),
  })
  .transform((fields): CrewFrontmatter => {
    const fm: Record<string, unknown> = {}
    for (const key of FIELD_ORDER) if (fields[key] !== null && fields[key] !== undefined) fm[key] = fields[key]
    return fm as unknown as CrewFrontmatter
  })

export const crewFrontmatterCodec = createFrontmatterCodec<CrewFrontmatter>({
  kind: "crew",
  schema,
  order: FIELD_ORDER,
  removable: ["lineage", "execution"],
})
