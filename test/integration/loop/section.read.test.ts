import { describe, expect, it } from "vitest"
import type { HandoffFields } from "../../../services/loop/loop.handoff"
import { LOOP, STRANGER } from "../../model/loop.world"
import { runningLoop } from "./running.loop"

// section_read and loop_adjust over the real loop service and lifecycle (SQLite): a pass reads its loop's sections as
// JSON, and nothing changes by it; a session that is no pass is refused. The auditor edits the section under audit in
// place, and each amendment keeps the sections before and after it.

const CODED: HandoffFields = {
  changes: [{ summary: "the parser", reason: "the section asks for it" }],
  deviations: [],
  verification: [{ command: "npm test", cwd: "", outcome: "pass", changedAfter: false }],
}
const CLEAN: HandoffFields = { findings: [], summary: { done: ["the parser"], deviations: [], followUps: [] } }

describe("section_read", () => {
  it("gives a pass the lowest section not done, a section by index, or the pending ones after the current, changing nothing", async () => {
    const { service, pass } = await runningLoop("forge-section-read-")
    await pass("ses_pass_1")
    const before = service.lifecycle.snapshot(LOOP)
    expect(JSON.parse(await service.sectionRead("ses_pass_1", {}))).toEqual({
      index: 0,
      title: "Parser",
      content: expect.stringContaining("recursive-descent parser"),
      status: "pending",
    })
    expect(JSON.parse(await service.sectionRead("ses_pass_1", { sectionIndex: 1 }))).toMatchObject({ index: 1, title: "Printer", status: "pending" })
    expect(JSON.parse(await service.sectionRead("ses_pass_1", { pendingSuffix: true }))).toEqual({
      from_index: 1,
      sections: [{ index: 1, title: "Printer", content: expect.stringContaining("minimal parentheses"), status: "pending" }],
    })
    expect(service.lifecycle.snapshot(LOOP), "a read changes nothing").toBe(before)
  })

  it("after a clean audit: the next section is the lowest not done, and the first reads as done", async () => {
    const { service, pass } = await runningLoop("forge-section-read-")
    await pass("ses_pass_1", CODED)
    await pass("ses_pass_2")
    await expect(service.toolRefusal("ses_pass_2", "section_read", []), "the audit's write-ban lets a read through").resolves.toBeNull()
    await pass("ses_pass_2", CLEAN)
    await pass("ses_pass_3")
    expect(JSON.parse(await service.sectionRead("ses_pass_3", {}))).toMatchObject({ index: 1, title: "Printer" })
    expect(JSON.parse(await service.sectionRead("ses_pass_3", { sectionIndex: 0 }))).toMatchObject({ index: 0, status: "done" })
    expect(JSON.parse(await service.sectionRead("ses_pass_3", { pendingSuffix: true }))).toEqual({ from_index: 2, sections: [] })
  })

  it("refuses both arguments at once, an index past the sections, and a session that is no pass of a loop", async () => {
    const { service, pass } = await runningLoop("forge-section-read-")
    await pass("ses_pass_1")
    await expect(service.sectionRead("ses_pass_1", { sectionIndex: 0, pendingSuffix: true })).rejects.toThrow("give section_index or pending_suffix, not both")
    await expect(service.sectionRead("ses_pass_1", { sectionIndex: 5 })).rejects.toThrow(`loop ${LOOP} has 2 sections, indexed 0 to 1; 5 is none of them`)
    await expect(service.sectionRead(STRANGER, {})).rejects.toThrow(`section_read: this session (${STRANGER}) is not a pass of a running loop`)
    await expect(service.toolRefusal("ses_pass_1", "section_read", []), "the coder's gate lets a read through").resolves.toBeNull()
  })
})

describe("loop_adjust's currentSection", () => {
  it("edits the section under audit in place, its progress kept, and the amendment keeps the sections before and after", async () => {
    const { service, pass } = await runningLoop("forge-section-read-")
    await pass("ses_pass_1", CODED)
    await pass("ses_pass_2")
    const answer = await service.adjust(
      "ses_pass_2",
      { current: { title: "Parser ", content: " Parse unary minus too. " } },
      "the section left unary minus unsaid",
    )
    expect(answer).toBe("Sections amended (amendment 1). Section 1 under audit now reads: Parser. Pending after section 1: 2. Printer.")
    expect(JSON.parse(await service.sectionRead("ses_pass_2", {}))).toEqual({ index: 0, title: "Parser", content: "Parse unary minus too.", status: "pending" })
    const [amendment] = service.lifecycle.snapshot(LOOP)?.context.amendments ?? []
    expect(amendment).toMatchObject({
      section: 1,
      rationale: "the section left unary minus unsaid",
      before: ["Printer"],
      after: ["Printer"],
      was: [
        { title: "Parser", content: expect.stringContaining("recursive-descent parser") },
        { title: "Printer", content: expect.stringContaining("minimal parentheses") },
      ],
      now: [
        { title: "Parser", content: "Parse unary minus too." },
        { title: "Printer", content: expect.stringContaining("minimal parentheses") },
      ],
    })
  })

  it("refuses an amendment that changes nothing, or a section under audit without a title, naming the gate", async () => {
    const { service, pass } = await runningLoop("forge-section-read-")
    await pass("ses_pass_1", CODED)
    await pass("ses_pass_2")
    await expect(service.adjust("ses_pass_2", {}, "why")).rejects.toThrow(
      "loop adjust gate: an amendment changes the section under audit (currentSection), the sections after it (sections), or both.",
    )
    await expect(service.adjust("ses_pass_2", { current: { title: " ", content: "x" } }, "why")).rejects.toThrow(
      "loop adjust gate: the section under audit needs a title and content.",
    )
  })
})
