import { existsSync } from "node:fs"
import path from "node:path"
import { databasePath } from "../adapters/storage/database.path"
import { PLAN_DIR } from "../services/plan/plan.paths"

/**
 * Whether an earlier run left anything in the workspace to restore: Forge's database, or plan documents to rebuild
 * live plans from. Without either, no lifecycle can exist yet, and nothing needs opening until one is started.
 */
export function holdsStoredState(workspace: string): boolean {
  return existsSync(databasePath(workspace)) || existsSync(path.join(workspace, PLAN_DIR))
}
