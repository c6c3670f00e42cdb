import { describe, expect, it } from "vitest"
import type { HandoffFields } from "../../../services/loop/loop.handoff"
import type { LoopReviewService } from "../../../services/loop/loop.review"
import { HOST, LOOP } from "../../model/loop.world"
import { loopWorkspace, runningLoop } from "./running.loop"

// Review findings as records over the real loop service and the workspace database: the scope a pass reads, the
// clean-audit gate on recorded bugs, the coder's brief naming a recurring bug, the audit history paged backwards, a
// restart that keeps all of it, and the workspace's own review outside every loop.

const CODED: HandoffFields = { changes: [{ summary: "the parser", reason: "the section" }], verification: [{ command: "npm test", outcome: "pass" }] }
const BARE: HandoffFields = { findings: [] }
const CLEAN: HandoffFields = { findings: [], summary: { done: ["the parser"] } }
const BUG = { file: "src/parser.ts", line: 12, severity: "bug", description: "unary minus binds too loosely" } as const

const findingsOf = async (reviews: LoopReviewService, session: string, request = {}) =>
  (JSON.parse(await reviews.read(session, request)) as { findings: { file: string; line: number; section: number | string }[] }).findings

describe("review findings", () => {
  it("a recorded bug blocks the audit until an auditor deletes it; the coder is told, and never deletes it", async () => {
    const { process, reviews, sessions, pass } = await runningLoop("forge-review-", 12)
    await pass("ses_1", CODED)
    await pass("ses_2")
    expect(await reviews.write("ses_2", { ...BUG, scenario: "parse('-2*3')" })).toBe(
      `Finding recorded for loop ${LOOP}, section 1: bug src/parser.ts:12 — unary minus binds too loosely. Bugs open in this audit's scope: 1.`,
    )
    await expect(reviews.write("ses_2", BUG), "one finding per place").rejects.toThrow(
      /^loop review gate: a finding at src\/parser\.ts:12 of section 1 is open already/,
    )
    await expect(process.service.handoff("ses_2", CLEAN), "no summary while a bug is open").rejects.toThrow(
      /a summary is forbidden while bug findings remain \(1 recorded and open/,
    )
    await pass("ses_2", BARE)
    expect(process.service.lifecycle.snapshot(LOOP)?.value, "the audit was dirty").toEqual({ running: "coding" })
    await pass("ses_3")
    expect(sessions.sent.at(-1)?.text).toContain("- bug src/parser.ts:12: unary minus binds too loosely Scenario: parse('-2*3')")
    await expect(reviews.delete("ses_3", { file: "src/parser.ts", line: 12 }), "a coder never deletes").rejects.toThrow(
      /^loop review gate: loop .* is in its coding phase; only its auditor records or deletes findings/,
    )
    await pass("ses_3", CODED)
    await pass("ses_4", BARE)
    await pass("ses_5")
    expect(sessions.sent.at(-1)?.text, "found in two audits in a row").toContain("(RECURRING: found in 2 audits in a row")
    await pass("ses_5", CODED)
    await pass("ses_6")
    expect(await reviews.delete("ses_6", { file: "./src//parser.ts", line: 12 })).toBe(
      "Finding at src/parser.ts:12 of section 1 deleted. Bugs open in this audit's scope: 0.",
    )
    await pass("ses_6", CLEAN)
    expect(process.service.lifecycle.snapshot(LOOP)?.context.sectionIndex, "clean: on to section 2").toBe(1)
  })

  it("a pass reads its audit's scope: its section and the earlier ones and the cross-section findings, not a later section's", async () => {
    const { reviews, pass } = await runningLoop("forge-review-", 12)
    await pass("ses_1", CODED)
    await pass("ses_2")
    await reviews.write("ses_2", { ...BUG, severity: "warning" })
    await reviews.write("ses_2", { file: "src/printer.ts", line: 3, severity: "bug", description: "for section 2", sectionIndex: 1 })
    await reviews.write("ses_2", { file: "README.md", line: 1, severity: "warning", description: "spans both", crossSection: true })
    expect((await findingsOf(reviews, "ses_2")).map((f) => `${f.section}:${f.file}`)).toEqual(["0:src/parser.ts", "cross-section:README.md"])
    expect(await findingsOf(reviews, "ses_2", { allSections: true })).toHaveLength(3)
    expect((await findingsOf(reviews, "ses_2", { crossSection: true })).map((f) => f.file)).toEqual(["README.md"])
    expect((await findingsOf(reviews, "ses_2", { pattern: "SECTION 2", allSections: true })).map((f) => f.file)).toEqual(["src/printer.ts"])
    expect((await findingsOf(reviews, "ses_2", { file: "./README.md" })).map((f) => f.line)).toEqual([1])
    // The later section's bug is not this audit's: the audit is clean without it.
    await pass("ses_2", CLEAN)
    await pass("ses_3")
    expect(
      (await findingsOf(reviews, "ses_3")).map((f) => f.file),
      "section 2 now sees its own bug",
    ).toContain("src/printer.ts")
  })

  it("keeps every audit, paged backwards, and the findings and history through a restart", async () => {
    const { process, reviews, pass, open, close, settle } = await runningLoop("forge-review-", 12)
    await pass("ses_1", CODED)
    await pass("ses_2")
    await reviews.write("ses_2", BUG)
    await pass("ses_2", BARE)
    await pass("ses_3", CODED)
    await pass("ses_4")
    await reviews.delete("ses_4", { file: BUG.file, line: BUG.line })
    await pass("ses_4", CLEAN)
    await settle()
    const page = JSON.parse(await reviews.read(HOST, { loopName: LOOP, attempts: true, limit: 1 }))
    expect(page.attempts).toHaveLength(1)
    // Its "before": the bug open when it started (it deleted it); its "after": nothing open in its scope.
    expect(page.attempts[0]).toMatchObject({ section: 1, outcome: "clean", pass: 4, before: [{ file: BUG.file, line: BUG.line }], after: [] })
    expect(page.attempts[0].coderHandoff).toMatchObject({ role: "coder", changes: [{ summary: "the parser" }] })
    const older = JSON.parse(await reviews.read(HOST, { loopName: LOOP, attempts: true, limit: 1, beforeId: page.nextBeforeId }))
    expect(older.attempts[0]).toMatchObject({ section: 1, outcome: "dirty", pass: 2, before: [], after: [{ file: BUG.file, line: BUG.line }] })
    const oldest = JSON.parse(await reviews.read(HOST, { loopName: LOOP, attempts: true, limit: 5, beforeId: older.nextBeforeId }))
    expect(oldest).toEqual({ loop: LOOP, attempts: [], nextBeforeId: null })
    // Another process on the same workspace (opencode restarted) reads the same history and findings.
    await close(process)
    const again = await open(2)
    expect(JSON.parse(await again.reviews.read(HOST, { loopName: LOOP, attempts: true })).attempts).toHaveLength(2)
  })

  it("outside every loop: the workspace's own review, one finding per place, deleted by anyone", async () => {
    const { open } = loopWorkspace("forge-review-")
    const { reviews } = await open(1)
    expect(await reviews.write("ses_user", { file: "src/a.ts", line: 4, severity: "bug", description: "off by one" })).toBe(
      "Finding recorded in the workspace's review: bug src/a.ts:4 — off by one.",
    )
    await expect(reviews.write("ses_other", { file: "src/a.ts", line: 4, severity: "warning", description: "again" })).rejects.toThrow(/open already/)
    expect(JSON.parse(await reviews.read("ses_other", {}))).toMatchObject({
      loop: null,
      scope: "the workspace's review",
      findings: [{ file: "src/a.ts", line: 4 }],
    })
    await expect(reviews.read("ses_other", { attempts: true })).rejects.toThrow(/attempts is a loop's audit history/)
    await expect(reviews.read("ses_other", { loopName: "nope" })).rejects.toThrow(/no loop named nope/)
    expect(await reviews.delete("ses_other", { file: "src/a.ts", line: 4 })).toBe("Finding at src/a.ts:4 deleted from the workspace's review.")
    await expect(reviews.delete("ses_other", { file: "src/a.ts", line: 4 })).rejects.toThrow(/has no open finding at src\/a\.ts:4/)
  })
})
