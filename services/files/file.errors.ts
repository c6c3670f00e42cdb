/** A file tool's refusal: the message names the tool, the path and what to do instead; nothing was changed. */
export class FileToolError extends Error {
  constructor(message: string) {
    super(message)
    this.name = "FileToolError"
  }
}
