// A workspace database Forge could not use. Forge then runs on an in-memory database rebuilt from the plan
// documents (so a readable draft still bans writes), and its own tools answer with this text instead of working.

export interface StorageTrouble {
  /** The database file (absolute). */
  file: string
  /** What is wrong, in the words of the check or of SQLite. */
  problem: string
  /** What the user can do about it. */
  remedy: string
}

/** The remedy for a database that is damaged or in the way: move it aside, and Forge starts afresh from the documents. */
export function moveAsideRemedy(target: string): string {
  return `move ${target} aside (e.g. mv ${target} ${target}.broken, with any -wal and -shm files beside it) and restart opencode: Forge creates a new database and rebuilds live plans from their documents in .opencode/plan/`
}

/** The remedy for a database another process holds locked. */
export function lockedRemedy(file: string): string {
  return `another process holds ${file} locked; close the other opencode (or the tool holding it) and restart this one`
}

/** The error Forge's own tools answer with while the database cannot be used. */
export function storageTroubleText(trouble: StorageTrouble): string {
  return (
    `Forge cannot use its database ${trouble.file}: ${trouble.problem}. ` +
    "Forge's plan tools are off until it is fixed (opencode's own tools keep working, and a draft plan whose document is readable still bans writes in its session). " +
    `To fix it: ${trouble.remedy}.`
  )
}
