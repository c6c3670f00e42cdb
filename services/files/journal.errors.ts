// The journal's refusals, and the one check every path it is handed passes first.
import path from "node:path"

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

/** The path, checked absolute (the journal records absolute, real paths; resolving them is the caller's part). */
export function absolute(file: string): string {
  if (!path.isAbsolute(file)) throw new JournalError(`${file} is not an absolute path: the journal records files by absolute, real path`, file)
  return path.normalize(file)
}
