import { existsSync, statSync } from "node:fs"
import type { StoredState } from "../adapters/opencode/forge.hooks"
import path from "node:path"
import { databasePath } from "../adapters/storage/database.path"
import { PLAN_DIR } from "../services/plan/plan.paths"

/**
 * Whether an earlier run left anything in the workspace to restore: Forge's database, or plan documents to rebuild
 * live plans from. Without either, no lifecycle can exist yet, and nothing needs opening until one is started.
 */
function holdsStoredState(workspace: string): boolean {
  return existsSync(databasePath(workspace)) || existsSync(path.join(workspace, PLAN_DIR))
}

/**
 * The modification times of what Forge stores (the database, its write-ahead log, the plan folder): a write by any
 * process changes one of them. Read with stat only.
 */
function storedStateStamp(workspace: string): string {
  const database = databasePath(workspace)
  return [database, `${database}-wal`, path.join(workspace, PLAN_DIR)].map((file) => statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? "-").join(" ")
}

/** The workspace's stored state, its stamp taken now (at the plugin's load). */
export function workspaceStoredState(workspace: string): StoredState {
  const atLoad = storedStateStamp(workspace)
  return { holds: () => holdsStoredState(workspace), changedSinceLoad: () => storedStateStamp(workspace) !== atLoad }
}
