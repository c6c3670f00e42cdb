// The review findings and the loops' audit history in SQLite, on the workspace database's one connection.
import { and, desc, eq, inArray, lt } from "drizzle-orm"
import * as z from "zod"
import { type LoopOpenFinding, placeOf } from "../../machines/loop/loop.findings"
import type { LoopHandoff } from "../../machines/loop/loop.gates"
import type { LoopAuditEntry, LoopReviews, StoredAudit, StoredFinding } from "../../services/loop/loop.ports"
import type { StorageConnection } from "./storage.connection"
import { reviewAudits, reviewFindings } from "./tables/review.tables"

/** The workspace's own review (outside every loop) keeps its findings under this loop name. */
const WORKSPACE_REVIEW = ""
const OUTSIDE_LOOPS = -1

// Rows are read back through schemas: a damaged row is named, never passed on as a finding.
const findingJson = z.array(
  z.object({
    section: z.number().int(),
    file: z.string(),
    line: z.number().int(),
    severity: z.enum(["bug", "warning"]),
    description: z.string(),
    scenario: z.string().nullable(),
  }),
)

export class SqliteLoopReviews implements LoopReviews {
  /** `connection`: the workspace database's, opened on first use. */
  constructor(private readonly connection: () => Promise<StorageConnection>) {}

  async store(loopName: string, findings: readonly LoopOpenFinding[], sessionId: string, at: number): Promise<void> {
    await (await this.connection()).exclusive((db) =>
      db.transaction(
        async (tx) => {
          const stored = await tx.select().from(reviewFindings).where(eq(reviewFindings.loopName, loopName))
          const wanted = new Map(findings.map((f) => [placeOf(f), f]))
          const gone = stored.filter((row) => !wanted.has(placeOf(row))).map((row) => row.id)
          if (gone.length > 0) await tx.delete(reviewFindings).where(inArray(reviewFindings.id, gone))
          const kept = new Set(stored.map(placeOf))
          const added = findings.filter((f) => !kept.has(placeOf(f)))
          if (added.length > 0) await tx.insert(reviewFindings).values(added.map((f) => ({ ...f, loopName, sessionId, createdAt: at })))
        },
        { behavior: "immediate" },
      ),
    )
  }

  async add(finding: LoopOpenFinding, sessionId: string, at: number): Promise<void> {
    const row = { ...finding, section: OUTSIDE_LOOPS, loopName: WORKSPACE_REVIEW, sessionId, createdAt: at }
    const inserted = await (await this.connection()).exclusive((db) =>
      db.insert(reviewFindings).values(row).onConflictDoNothing().returning({ id: reviewFindings.id }),
    )
    if (inserted.length === 0)
      throw new Error(`review_write: a finding at ${finding.file}:${finding.line} is open already; delete it with review_delete first, or give another line.`)
  }

  async remove(place: { file: string; line: number }): Promise<boolean> {
    const deleted = await (await this.connection()).exclusive((db) =>
      db
        .delete(reviewFindings)
        .where(
          and(
            eq(reviewFindings.loopName, WORKSPACE_REVIEW),
            eq(reviewFindings.section, OUTSIDE_LOOPS),
            eq(reviewFindings.file, place.file),
            eq(reviewFindings.line, place.line),
          ),
        )
        .returning({ id: reviewFindings.id }),
    )
    return deleted.length > 0
  }

  async findings(loopName: string): Promise<StoredFinding[]> {
    const rows = await (await this.connection()).exclusive((db) =>
      db.select().from(reviewFindings).where(eq(reviewFindings.loopName, loopName)).orderBy(reviewFindings.id),
    )
    return rows.map((row) => ({ ...row, scenario: row.scenario ?? null }))
  }

  async recordAudit(entry: LoopAuditEntry): Promise<void> {
    const { coderHandoff, before, after, ...rest } = entry
    await (await this.connection()).exclusive((db) =>
      db.insert(reviewAudits).values({
        ...rest,
        coderHandoff: coderHandoff === null ? null : JSON.stringify(coderHandoff),
        findingsBefore: JSON.stringify(before),
        findingsAfter: JSON.stringify(after),
      }),
    )
  }

  async audits(loopName: string, limit: number, beforeId?: number): Promise<StoredAudit[]> {
    const rows = await (await this.connection()).exclusive((db) =>
      db
        .select()
        .from(reviewAudits)
        .where(and(eq(reviewAudits.loopName, loopName), beforeId === undefined ? undefined : lt(reviewAudits.id, beforeId)))
        .orderBy(desc(reviewAudits.id))
        .limit(limit),
    )
    return rows.map((row) => ({
      id: row.id,
      loopName: row.loopName,
      section: row.section,
      pass: row.pass,
      sessionId: row.sessionId,
      outcome: row.outcome,
      at: row.at,
      coderHandoff: row.coderHandoff === null ? null : (parseJson(row.coderHandoff, `audit ${row.id}'s coder handoff`) as LoopHandoff),
      before: findingJson.parse(parseJson(row.findingsBefore, `audit ${row.id}'s findings before`)),
      after: findingJson.parse(parseJson(row.findingsAfter, `audit ${row.id}'s findings after`)),
    }))
  }
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw new Error(`the review history is damaged: ${what} is not valid JSON`)
  }
}
