// The goal document's byte-exact writers: history lines (Check Log idempotent per run, revision and item), frontmatter
// patches and contract replacement, each keeping every byte it is not about.

import { describe, expect, it } from "vitest"
import { DocumentError, DocumentInputError } from "../../../services/documents/document.errors"
import type { GoalContract } from "../../../services/goal/goal.contract"
import {
  appendCheckLog,
  appendRevision,
  appendTurnLedger,
  type CheckLogEntry,
  parseGoalDocument,
  replaceContract,
  withGoalFrontmatter,
} from "../../../services/goal/goal.document"
import { DOC, SOURCE, TEXT } from "./goal.fixtures"

const ENTRY: CheckLogEntry = {
  at: "2026-12-02T10:03:00.000Z",
  run: "r2",
  revision: 1,
  item: 2,
  pass: false,
  ms: 40,
  label: "src/a.ts :: export const A",
  detail: "missing\n  text",
}

describe("history writers", () => {
  it("appendCheckLog adds each (run, revision, item) once, replacing the placeholder or creating the section", () => {
    const once = appendCheckLog(TEXT, SOURCE, [ENTRY, { ...ENTRY, detail: "again" }])
    const line = "- 2026-12-02T10:03:00.000Z run=r2 rev1 #2 FAIL (40 ms) `src/a.ts :: export const A` :: missing text"
    expect(once).toBe(TEXT.replace("12 passed\n", `12 passed\n${line}\n`))
    expect(appendCheckLog(once, SOURCE, [ENTRY, DOC.checkLog[0] as CheckLogEntry])).toBe(once)
    expect(parseGoalDocument(once, SOURCE).checkLog).toEqual([DOC.checkLog[0], { ...ENTRY, detail: "missing text" }])

    const empty = TEXT.replace(/## Check Log\n.*\n/, "## Check Log\n- (none)\n")
    expect(appendCheckLog(empty, SOURCE, [ENTRY])).toBe(TEXT.replace(/## Check Log\n.*\n/, `## Check Log\n${line}\n`))
    const missing = TEXT.replace(/## Check Log\n.*\n\n/, "")
    expect(appendCheckLog(missing, SOURCE, [ENTRY])).toBe(`${missing}\n## Check Log\n${line}\n`)
  })

  it("appendTurnLedger and appendRevision add one line, keeping every other byte", () => {
    const turn = appendTurnLedger(TEXT, SOURCE, { at: "2026-12-02T10:04:00.000Z", turn: 2, activity: { writes: 0, shell: 0, checks: 0, ticks: 0 } })
    expect(turn).toBe(TEXT.replace("ticks 0)\n", "ticks 0)\n- 2026-12-02T10:04:00.000Z turn 2: no activity\n"))
    const revised = appendRevision(TEXT, SOURCE, '2026-12-02T10:05:00.000Z revision 2 (hand edit): removed criterion "x"')
    expect(revised).toBe(TEXT.replace("- (none)\n", '- 2026-12-02T10:05:00.000Z revision 2 (hand edit): removed criterion "x"\n'))
    expect(parseGoalDocument(appendRevision(revised, SOURCE, "next"), SOURCE).revisions).toHaveLength(2)
    expect(() => appendRevision(TEXT, SOURCE, "two\nlines")).toThrow(DocumentInputError)
  })

  it("withGoalFrontmatter patches keys in place and removes removable ones", () => {
    const patched = withGoalFrontmatter(TEXT, SOURCE, { turns_used: 3, stop_reason: "blocker", blocker: 'needs "creds"', armed_at: undefined })
    expect(patched).toBe(
      TEXT.replace("turns_used: 0", "turns_used: 3")
        .replace("armed_at: 2026-12-02T10:00:00.000Z\n", "")
        .replace("---\n\n", 'stop_reason: blocker\nblocker: needs "creds"\n---\n\n'),
    )
    expect(parseGoalDocument(patched, SOURCE).frontmatter).toMatchObject({ turns_used: 3, stop_reason: "blocker", blocker: 'needs "creds"' })
    expect(() => withGoalFrontmatter(TEXT, SOURCE, { max_turns: 0 })).toThrow(DocumentError)
  })
})

describe("replaceContract", () => {
  it("rewrites the title and contract sections, keeping the frontmatter, history and other sections", () => {
    const text = TEXT.replace("## Check Log", "## Notes\nmine\n\n## Check Log")
    const next: GoalContract = { ...DOC.contract, objective: "a new aim", checks: [{ kind: "command", command: "npm run lint", timeoutS: 30 }], nonGoals: [] }
    const replaced = replaceContract(text, SOURCE, next)
    const head = TEXT.slice(0, TEXT.indexOf("# Goal"))
    const history = text.slice(text.indexOf("## Notes"))
    expect(replaced.startsWith(head)).toBe(true)
    expect(replaced.endsWith(`## Non-goals\n- (none)\n\n${history}`)).toBe(true)
    expect(replaced).toContain("# Goal: a new aim\n\n## Objective\na new aim\n")
    const doc = parseGoalDocument(replaced, SOURCE)
    expect(doc.contract).toEqual(next)
    expect(doc.checkLog).toEqual(DOC.checkLog)
    expect(replaceContract(replaced, SOURCE, next)).toBe(replaced)
  })
})
