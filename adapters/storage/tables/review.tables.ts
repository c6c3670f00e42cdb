// Review findings and the loops' audit history: findings outlive the passes (and restarts) that wrote them, and every
// audit of a loop is kept with what it was handed and what it found.
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core"

/** One open finding: a bug blocks a loop's audit while it stands; a fixed finding is deleted by an auditor. */
export const reviewFindings = sqliteTable(
  "review_findings",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** The loop it belongs to; "" for a finding of the workspace's own review (/review, outside every loop). */
    loopName: text("loop_name").notNull(),
    /** The section (0-based) it belongs to; -1 for a cross-section finding, or one outside every loop. */
    section: integer("section").notNull(),
    /** Workspace-relative path ("" when it is about no one file) and 1-based line (0: none). */
    file: text("file").notNull(),
    line: integer("line").notNull(),
    severity: text("severity", { enum: ["bug", "warning"] }).notNull(),
    description: text("description").notNull(),
    scenario: text("scenario"),
    /** The session that wrote it. */
    sessionId: text("session_id").notNull(),
    /** Epoch ms. */
    createdAt: integer("created_at").notNull(),
  },
  // One finding per place: writing another where one stands is a conflict only review_delete clears.
  (table) => [uniqueIndex("review_findings_place_idx").on(table.loopName, table.section, table.file, table.line)],
)

/** One audit of a loop's section (or its final audit): the coder's handoff it checked, its outcome, the findings. */
export const reviewAudits = sqliteTable(
  "review_audits",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    loopName: text("loop_name").notNull(),
    /** The section audited (0-based); -1 for the final audit of the whole plan. */
    section: integer("section").notNull(),
    /** The loop's pass number of the audit. */
    pass: integer("pass").notNull(),
    sessionId: text("session_id").notNull(),
    outcome: text("outcome", { enum: ["clean", "dirty"] }).notNull(),
    /** JSON: the coder's handoff the audit was given (null: none). */
    coderHandoff: text("coder_handoff"),
    /** JSON: the findings in the audit's scope when it started, and when it handed off. */
    findingsBefore: text("findings_before").notNull(),
    findingsAfter: text("findings_after").notNull(),
    /** Epoch ms. */
    at: integer("at").notNull(),
  },
  (table) => [index("review_audits_loop_idx").on(table.loopName, table.id)],
)
