import path from "node:path"

/**
 * Where a session's artifacts live: the git worktree root when there is one, else the folder itself. opencode
 * reports "/" as the worktree outside git, and the drive root is never a workspace.
 */
export function workspaceRoot(directory: string, worktree: string): string {
  const root = worktree && path.resolve(worktree) !== path.parse(path.resolve(worktree)).root ? worktree : directory
  return path.resolve(root)
}
