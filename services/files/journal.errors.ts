// The journal's refusals, and the one check every path it is handed passes first.
import path from "node:path"
import type { RewindReport } from "./journal.types"

/** A failure of the journal: the message names the file and what to do. Nothing was written when it is thrown. */
export class JournalError extends Error {
  /** The file concerned, when there is one. */
  readonly path: string | undefined

  constructor(message: string, file?: string) {
    super(message)
    this.name = "JournalError"
    this.path = file
  }
}

/** A rewind whose files moved since the preview the user allowed: nothing was written; `plan` is what it would do now. */
export class RewindMovedError extends JournalError {
  readonly plan: RewindReport

  constructor(plan: RewindReport) {
    super("the session's files changed since the rewind was shown to the user: nothing was rewound")
    this.name = "RewindMovedError"
    this.plan = plan
  }
}

/** The path, checked absolute (the journal records absolute, real paths; resolving them is the caller's part). */
export function absolute(file: string): string {
  if (!path.isAbsolute(file)) throw new JournalError(`${file} is not an absolute path: the journal records files by absolute, real path`, file)
  return path.normalize(file)
}
