import { access } from "node:fs/promises"
import path from "node:path"
import { writeFileAtomic } from "./atomic.write"

/** What Forge keeps in `.opencode/forge` is this machine's state: its database and the loops' worktrees. */
export const FORGE_FOLDER_IGNORE = "# Forge's state on this machine (its database, the loops' worktrees): never committed.\n*\n"

/**
 * Keeps Forge's folder out of git: a `.gitignore` of `*` beside the database, so `git status`, a commit and opencode's
 * snapshots (which would copy, and on a revert restore, a database in use) never take it. Written once; a
 * `.gitignore` already there is the user's and stays.
 */
export async function ignoreForgeFolder(folder: string): Promise<void> {
  const file = path.join(folder, ".gitignore")
  const present = await access(file).then(
    () => true,
    () => false,
  )
  if (!present) await writeFileAtomic(file, FORGE_FOLDER_IGNORE)
}
