// A step in progress on a terminal: one line on the stream (stderr), overwritten by the next step and cleared when it
// is done, so the result printed after it takes its place. Nothing at all when the stream is not a terminal: a pipe
// or a file gets only the results.

/** What `progress` writes to: a stream, which may be a terminal. */
export interface ProgressStream {
  isTTY?: boolean
  write(text: string): unknown
}

export interface Progress {
  /** Shows `text` as the step in progress, in place of the one before. */
  step(text: string): void
  /** Clears the step's line (before its result is printed). */
  done(): void
}

/** Back to the line's start, then erase the line. */
const CLEAR_LINE = "\r\x1b[2K"

export function progress(stream: ProgressStream): Progress {
  if (stream.isTTY !== true) return { step: () => {}, done: () => {} }
  let shown = false
  return {
    step(text) {
      // One line: a newline in the text would leave a line behind that the clear cannot reach.
      stream.write(`${CLEAR_LINE}${text.replace(/\s*\n\s*/g, " ")}`)
      shown = true
    },
    done() {
      if (!shown) return
      stream.write(CLEAR_LINE)
      shown = false
    },
  }
}
