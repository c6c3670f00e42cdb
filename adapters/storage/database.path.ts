import path from "node:path"

/** The workspace's database file: `<workspaceDir>/.opencode/forge/forge.db` (one database per workspace). */
export function databasePath(workspaceDir: string): string {
  return path.join(path.resolve(workspaceDir), ".opencode", "forge", "forge.db")
}
