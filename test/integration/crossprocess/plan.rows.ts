// What the workspace database and the plan documents say, read from the test's own process: the database through a
// separate read-only connection (a third reader beside the runtimes), the documents straight from disk. Nothing here
// goes through a runtime, so a runtime that only believes it wrote something cannot make a check pass.
import { existsSync, readdirSync, readFileSync } from "node:fs"
import path from "node:path"
import { planStatusOf } from "../../../machines/plan/plan.status"
import { parsePlanDocument } from "../../../services/plan/plan.document"
import { PLAN_DIR } from "../../../services/plan/plan.paths"
import type { PlanDocument } from "../../../services/plan/plan.types"
import { withDatabase } from "./database.read"

export interface PlanRow {
  planPath: string
  /** The row's state column, e.g. "approved.working". */
  state: string
  /** The document status that state stands for (its top-level state). */
  status: string
  terminal: boolean
  sessionId: string | null
  exclusiveKey: string | null
  revision: number
  /** The tasks in the row's persisted snapshot. */
  tasks: { number: number; ticked: boolean }[]
}

interface RawRow {
  instance_id: string
  state: string
  terminal: number
  session_id: string | null
  exclusive_key: string | null
  revision: number
  snapshot: string
}

function tasksOf(snapshot: string, planPath: string): PlanRow["tasks"] {
  const parsed = JSON.parse(snapshot) as { context?: { tasks?: unknown } }
  const tasks = parsed.context?.tasks
  if (!Array.isArray(tasks)) throw new Error(`the snapshot of ${planPath} has no task list: ${snapshot.slice(0, 200)}`)
  return tasks as PlanRow["tasks"]
}

/** Every plan row of the workspace's database, finished ones included. */
export async function planRows(workspace: string): Promise<PlanRow[]> {
  const rows = await withDatabase(
    workspace,
    (db) =>
      new Promise<RawRow[]>((resolve, reject) =>
        db.all<RawRow>(
          "SELECT instance_id, state, terminal, session_id, exclusive_key, revision, snapshot FROM actors WHERE machine_id = 'plan' ORDER BY instance_id",
          (error, result) => (error ? reject(error) : resolve(result)),
        ),
      ),
  )
  return rows.map((row) => ({
    planPath: row.instance_id,
    state: row.state,
    // "approved.working" → "approved": the same reading the service gives a state value.
    status: planStatusOf(row.state.split(".")[0] ?? row.state),
    terminal: row.terminal === 1,
    sessionId: row.session_id,
    exclusiveKey: row.exclusive_key,
    revision: row.revision,
    tasks: tasksOf(row.snapshot, row.instance_id),
  }))
}

export interface PlanTransition {
  planPath: string
  from: string
  event: string
  to: string
}

/** The plan transition log, oldest first: one plan's, or every plan's. */
export async function planTransitions(workspace: string, planPath?: string): Promise<PlanTransition[]> {
  const where = planPath === undefined ? "" : " AND instance_id = ?"
  return withDatabase(
    workspace,
    (db) =>
      new Promise((resolve, reject) =>
        db.all<PlanTransition>(
          `SELECT instance_id AS planPath, from_state AS "from", event, to_state AS "to" FROM transitions WHERE machine_id = 'plan'${where} ORDER BY id`,
          planPath === undefined ? [] : [planPath],
          (error, rows) => (error ? reject(error) : resolve(rows)),
        ),
      ),
  )
}

/** One plan document as it is on disk now, parsed. */
export function planDocument(workspace: string, planPath: string): PlanDocument {
  return parsePlanDocument(readFileSync(path.join(workspace, planPath), "utf8"), planPath)
}

/** Workspace-relative paths of every plan document on disk. */
export function planDocuments(workspace: string): string[] {
  const folder = path.join(workspace, PLAN_DIR)
  if (!existsSync(folder)) return []
  return readdirSync(folder)
    .filter((name) => name.endsWith(".md"))
    .map((name) => `${PLAN_DIR}/${name}`)
    .sort()
}

/**
 * File = database, for every plan of the workspace: every document has a row and every row a document, the row's
 * status is the document's, its tasks are the document's (number and tick), and it is terminal exactly when the
 * status is. Returns the disagreements, one line each, so a failing check names every plan that drifted.
 */
export async function fileDatabaseDrift(workspace: string): Promise<string[]> {
  const drift: string[] = []
  const rows = await planRows(workspace)
  const known = new Set(rows.map((row) => row.planPath))
  for (const planPath of planDocuments(workspace)) if (!known.has(planPath)) drift.push(`${planPath}: a document without a database row`)
  for (const row of rows) {
    if (!existsSync(path.join(workspace, row.planPath))) {
      drift.push(`${row.planPath}: a database row (${row.state}) without a document`)
      continue
    }
    const doc = planDocument(workspace, row.planPath)
    const docTasks = doc.tasks.map((t) => ({ number: t.number, ticked: t.ticked }))
    if (doc.frontmatter.status !== row.status) drift.push(`${row.planPath}: document says ${doc.frontmatter.status}, database ${row.state}`)
    if (JSON.stringify(docTasks) !== JSON.stringify(row.tasks))
      drift.push(`${row.planPath}: document tasks ${JSON.stringify(docTasks)}, database ${JSON.stringify(row.tasks)}`)
    const finished = !["draft", "approved"].includes(row.status)
    if (row.terminal !== finished) drift.push(`${row.planPath}: row ${row.state} is ${row.terminal ? "" : "not "}terminal`)
  }
  return drift
}
