// Two kinds of failure for every document kind (plan, goal, crew record, ...): a document that does not hold what
// its kind needs, and a bad argument to one of the codec's operations (usually the model's tool input). Tool layers
// show both messages to the model verbatim.

/** A document (or a text about to be stored as one) is malformed. The message reads `source:line: what is wrong`. */
export class DocumentError extends Error {
  /** The file path (or another label) of the text that failed. */
  readonly source: string
  /** 1-based line in the source, when the problem sits on one line. */
  readonly line?: number
  /** The message without the `source:line:` prefix. */
  readonly detail: string

  constructor(source: string, detail: string, line?: number) {
    super(line === undefined ? `${source}: ${detail}` : `${source}:${line}: ${detail}`)
    this.name = "DocumentError"
    this.source = source
    this.detail = detail
    if (line !== undefined) this.line = line
  }
}

/** An operation's argument is unusable: an offset past the end, an invalid pattern, an ambiguous replacement. */
export class DocumentInputError extends Error {
  constructor(message: string) {
    super(message)
    this.name = "DocumentInputError"
  }
}

/**
 * A document changed on disk between Forge's read and its write (another program, an editor, another process): the
 * write is refused so that change is not overwritten, and the step that wanted it is not applied.
 */
export class DocumentChangedError extends Error {
  constructor(readonly path: string) {
    super(`${path} changed on disk while Forge was updating it (an editor or another process wrote it in between): nothing was applied; run the call again`)
    this.name = "DocumentChangedError"
  }
}
