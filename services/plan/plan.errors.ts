// Two kinds of failure: a document that does not hold a valid plan, and a bad argument to one of the codec's
// operations (usually the model's tool input). Tool layers show both messages to the model verbatim.

/** A plan document (or a body about to be stored) is malformed. The message reads `source:line: what is wrong`. */
export class PlanDocumentError extends Error {
  /** The file path (or another label) of the text that failed. */
  readonly source: string
  /** 1-based line in the source, when the problem sits on one line. */
  readonly line?: number
  /** The message without the `source:line:` prefix. */
  readonly detail: string

  constructor(source: string, detail: string, line?: number) {
    super(line === undefined ? `${source}: ${detail}` : `${source}:${line}: ${detail}`)
    this.name = "PlanDocumentError"
    this.source = source
    this.detail = detail
    if (line !== undefined) this.line = line
  }
}

/** An operation's argument is unusable: an offset past the end, an invalid pattern, an ambiguous replacement. */
export class PlanInputError extends Error {
  constructor(message: string) {
    super(message)
    this.name = "PlanInputError"
  }
}
