// The workspace database read from the test's own process, through a separate read-only connection (a third reader
// beside the runtimes): a runtime that only believes it wrote something cannot make a check pass.
import path from "node:path"
import sqlite3 from "sqlite3"

/** Runs `work` on a fresh read-only connection to the workspace's database, closed afterwards. */
export async function withDatabase<T>(workspace: string, work: (db: sqlite3.Database) => Promise<T>): Promise<T> {
  const file = path.join(workspace, ".opencode/forge/forge.db")
  const db = await new Promise<sqlite3.Database>((resolve, reject) => {
    const opened = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (error) => (error ? reject(error) : resolve(opened)))
  })
  try {
    db.configure("busyTimeout", 5_000)
    return await work(db)
  } finally {
    await new Promise<void>((resolve) => db.close(() => resolve()))
  }
}

/** The transition rows of one machine, oldest first: instance, from, event, to. */
export async function transitionsOf(workspace: string, machineId: string): Promise<{ instanceId: string; from: string; event: string; to: string }[]> {
  return withDatabase(
    workspace,
    (db) =>
      new Promise((resolve, reject) =>
        db.all<{ instanceId: string; from: string; event: string; to: string }>(
          `SELECT instance_id AS instanceId, from_state AS "from", event, to_state AS "to" FROM transitions WHERE machine_id = ? ORDER BY id`,
          [machineId],
          (error, rows) => (error ? reject(error) : resolve(rows)),
        ),
      ),
  )
}

/** The state one actor's row holds now (undefined: no row). */
export async function stateOf(workspace: string, machineId: string, instanceId: string): Promise<string | undefined> {
  return withDatabase(
    workspace,
    (db) =>
      new Promise((resolve, reject) =>
        db.get<{ state: string }>("SELECT state FROM actors WHERE machine_id = ? AND instance_id = ?", [machineId, instanceId], (error, row) =>
          error ? reject(error) : resolve(row?.state),
        ),
      ),
  )
}
