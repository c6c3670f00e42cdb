import { describe, expect, it } from "vitest"
import { progress } from "../../../src/cli.progress"

// The step in progress on a terminal: one line, replaced by the next step, cleared when done; nothing on a pipe.

function stream(isTTY: boolean | undefined) {
  const written: string[] = []
  return { written, isTTY, write: (text: string) => written.push(text) }
}

const CLEAR = "\r\x1b[2K"

describe("progress", () => {
  it("on a terminal shows each step in place of the last and clears it when done", () => {
    const tty = stream(true)
    const shown = progress(tty)
    shown.step("checking opencode…")
    shown.step("checking plugin…")
    shown.done()
    // A second done has no line left to clear.
    shown.done()
    expect(tty.written).toEqual([`${CLEAR}checking opencode…`, `${CLEAR}checking plugin…`, CLEAR])
  })

  it("keeps a step on one line, so the clear reaches all of it", () => {
    const tty = stream(true)
    progress(tty).step("checking\n  the config")
    expect(tty.written).toEqual([`${CLEAR}checking the config`])
  })

  it("writes nothing to a stream that is not a terminal", () => {
    for (const piped of [stream(false), stream(undefined)]) {
      const shown = progress(piped)
      shown.step("checking opencode…")
      shown.done()
      expect(piped.written).toEqual([])
    }
  })
})
