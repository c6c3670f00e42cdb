import { describe, expect, it } from "vitest"
import { isNoticePart, noticeParts, noticeText } from "../../../adapters/opencode/forge.notice"

// What Forge writes into a session on its own: the model's text, hidden from the transcript, and its notice for the
// user beside it, never sent to the model.

describe("Forge's notices", () => {
  it("a brief's notice is its tagged lines (the brief's first, each wake it carries), the tag read as Forge's", () => {
    const brief = [
      "[forge:goal-continue] Goal .opencode/goal/g.md — continuation turn 2 of 5 (revision 1).",
      "",
      "Objective:",
      "make it green",
      "",
      "[forge:job-complete] Job job_1 finished: exit code 0.",
      "command: npm test",
    ].join("\n")
    expect(noticeText(brief)).toBe("Forge · Goal .opencode/goal/g.md — continuation turn 2 of 5 (revision 1).\nForge · Job job_1 finished: exit code 0.")
    expect(noticeText("an untagged first line\nmore")).toBe("an untagged first line")
  })

  it("an ending's notice is the whole text", () => {
    expect(noticeText("[forge:loop] Loop x completed: clean.\n1 of 1 sections done in 3 passes.", true)).toBe(
      "Forge · Loop x completed: clean.\n1 of 1 sections done in 3 passes.",
    )
  })

  it("the model's part is synthetic (sent, not shown), the notice ignored (shown, not sent) and marked as Forge's", () => {
    const [model, notice] = noticeParts("[forge:loop] Loop x — section 1 of 2: Parser (pass 1 of at most 15, coder).\nbody")
    expect(model).toEqual({ type: "text", text: "[forge:loop] Loop x — section 1 of 2: Parser (pass 1 of at most 15, coder).\nbody", synthetic: true })
    expect(notice).toMatchObject({ type: "text", text: "Forge · Loop x — section 1 of 2: Parser (pass 1 of at most 15, coder).", ignored: true })
    expect(notice !== undefined && isNoticePart({ ...notice })).toBe(true)
    expect(isNoticePart({ type: "text", text: "/goal x", ignored: true })).toBe(false)
    expect(isNoticePart({ type: "text", text: "x", ignored: false, metadata: { forge: "notice" } })).toBe(false)
    expect(isNoticePart({ type: "text", text: "x", ignored: true, metadata: null })).toBe(false)
  })
})
