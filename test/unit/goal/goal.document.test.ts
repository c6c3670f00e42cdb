// The goal document codec: render/parse round trips (code spans holding any backticks, `::` in texts, unicode),
// hand-edited documents, and the contract's changes in words. The writers: goal.document.edits.test.ts.

import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { DocumentInputError } from "../../../services/documents/document.errors"
import type { GoalCheck, GoalContract } from "../../../services/goal/goal.contract"
import { codeSpan, readCodeSpan } from "../../../services/goal/goal.contract.text"
import {
  type CheckLogEntry,
  checkLabel,
  describeContractChanges,
  type GoalDocument,
  parseGoalDocument,
  renderGoalDocument,
} from "../../../services/goal/goal.document"
import { DOC, SOURCE, TEXT, thrown } from "./goal.fixtures"

const oneLine = fc.string({ unit: "grapheme", minLength: 1, maxLength: 30 }).filter((s) => s.trim() !== "" && !/[\r\n\u2028\u2029]/.test(s))
const withTicks = fc.oneof(
  oneLine,
  fc.array(fc.constantFrom("`", "``", " ", "::", "a", "é", "🎯", "\\"), { minLength: 1, maxLength: 8 }).map((parts) => parts.join("")),
)
const item = oneLine.map((s) => s.trim()).filter((s) => s !== "(none)")
const spanText = withTicks.filter((s) => s.trim() !== "")
const check: fc.Arbitrary<GoalCheck> = fc.oneof(
  fc.record({ kind: fc.constant("command" as const), command: spanText, timeoutS: fc.integer({ min: 1, max: 600 }) }),
  fc.record({ kind: fc.constant("contains" as const), file: spanText, text: spanText }),
)
const contract: fc.Arbitrary<GoalContract> = fc.record({
  objective: fc
    .array(
      item.map((s) => `o ${s}`),
      { minLength: 1, maxLength: 3 },
    )
    .map((lines) => lines.join("\n")),
  checks: fc.array(check, { maxLength: 4 }),
  success: fc.array(item, { maxLength: 3 }),
  constraints: fc.array(item, { maxLength: 3 }),
  nonGoals: fc.array(item, { maxLength: 3 }),
  budgets: fc.constant(DOC.contract.budgets),
})

describe("code spans", () => {
  it("round-trip any one-line text, backticks and edge spaces included", () => {
    fc.assert(
      fc.property(withTicks, (text) => {
        const span = codeSpan(text)
        expect(readCodeSpan(`${span} tail`, 0)).toEqual({ text, end: span.length })
      }),
      { numRuns: 500 },
    )
    expect(codeSpan("a`b")).toBe("``a`b``")
    expect(codeSpan("`x``")).toBe("``` `x`` ```")
    expect(codeSpan(" a ")).toBe("`  a  `")
  })
})

describe("renderGoalDocument / parseGoalDocument", () => {
  it("writes the documented format and reads it back", () => {
    expect(renderGoalDocument(DOC)).toBe(TEXT)
    expect(parseGoalDocument(TEXT, SOURCE)).toEqual(DOC)
  })

  it("round-trips backticks, `::` inside contains texts and unicode", () => {
    const doc: GoalDocument = {
      ...DOC,
      contract: {
        ...DOC.contract,
        objective: "réparer `le` login 🎯",
        checks: [
          { kind: "command", command: "echo `date` && grep -c '``' x", timeoutS: 600 },
          { kind: "contains", file: "docs/a b.md", text: "x :: y :: `z`" },
          { kind: "command", command: "`", timeoutS: 1 },
        ],
        success: ["`tests` pass — ✓"],
      },
      checkLog: [{ ...DOC.checkLog[0], label: "docs/a b.md :: x :: y :: `z`", detail: "found — ok :: fine", pass: false } as CheckLogEntry],
      revisions: ["2026-12-02T10:05:00.000Z revision 2 (hand edit): added check 3 `npm run lint`"],
    }
    const text = renderGoalDocument(doc)
    expect(text).toContain("1. command ```echo `date` && grep -c '``' x``` (timeout 600 s)")
    expect(text).toContain("2. contains `docs/a b.md` :: `` x :: y :: `z` ``")
    expect(text).toContain("3. command `` ` `` (timeout 1 s)")
    expect(parseGoalDocument(text, SOURCE)).toEqual(doc)
  })

  it("round-trips any contract, Check Log and revisions", () => {
    const entry = fc.record({
      at: fc.constant("2026-12-02T10:01:00.000Z"),
      run: fc.stringMatching(/^\S{1,8}$/),
      revision: fc.integer({ min: 1, max: 99 }),
      item: fc.integer({ min: 1, max: 99 }),
      pass: fc.boolean(),
      ms: fc.nat(),
      label: spanText,
      detail: fc.oneof(
        fc.constant(""),
        item.map((s) => s.replace(/\s+/g, " ").slice(0, 400).trim()),
      ),
    })
    fc.assert(
      fc.property(contract, fc.array(entry, { maxLength: 3 }), fc.array(item, { maxLength: 2 }), (c, checkLog, revisions) => {
        const doc = { ...DOC, contract: c, checkLog, revisions }
        expect(parseGoalDocument(renderGoalDocument(doc), SOURCE)).toEqual(doc)
      }),
      { numRuns: 300 },
    )
  })

  it("renders empty lists as `- (none)` and reads them back empty; optional frontmatter keys are left out", () => {
    const { session: _s, max_cost: _c, max_tokens: _t, armed_at: _a, ...frontmatter } = DOC.frontmatter
    const doc: GoalDocument = {
      frontmatter: { ...frontmatter, status: "queued" },
      contract: { ...DOC.contract, checks: [], success: [], constraints: [], nonGoals: [], budgets: { maxTurns: 25, maxMinutes: 60 } },
      checkLog: [],
      ledger: [{ at: "2026-12-02T10:02:00.000Z", turn: 2, activity: { writes: 0, shell: 0, checks: 0, ticks: 0 } }],
      revisions: [],
    }
    const text = renderGoalDocument(doc)
    expect(text).not.toMatch(/session|max_cost|max_tokens|armed_at/)
    expect(text.match(/^- \(none\)$/gm)).toHaveLength(6)
    expect(text).toContain("- 2026-12-02T10:02:00.000Z turn 2: no activity\n")
    expect(parseGoalDocument(text, SOURCE)).toEqual(doc)
  })

  it("reads a hand-edited document: blank lines, heading case, other bullets, missing optional sections", () => {
    const text = [
      ...TEXT.split("\n").slice(0, 14),
      "# goal: whatever",
      "",
      "",
      "## OBJECTIVE",
      "",
      "  make the login survive idle",
      "",
      "### success criteria:",
      "",
      "* zero failing tests",
      "",
      "",
      "##   checks  ",
      "1)  command `npm test`",
      "",
      "2. contains `src/a.ts`   ::   `export const A`   ",
      "## Non Goals",
      "+ refactoring",
      "1. and docs",
      "## Notes",
      "anything",
    ].join("\r\n")
    const doc = parseGoalDocument(text, SOURCE)
    expect(doc.contract).toEqual({ ...DOC.contract, objective: "make the login survive idle", constraints: [], nonGoals: ["refactoring", "and docs"] })
    expect(doc.checkLog).toEqual([])
    expect(doc.ledger).toEqual([])
    expect(doc.revisions).toEqual([])
  })

  it("refuses to render an item with a line break, naming it", () => {
    const contractWith = (patch: Partial<GoalContract>) => () => renderGoalDocument({ ...DOC, contract: { ...DOC.contract, ...patch } })
    const cases: [Partial<GoalContract>, string][] = [
      [{ checks: [DOC.contract.checks[0] as GoalCheck, { kind: "command", command: "a\nb", timeoutS: 5 }] }, `check 2's command has a line break: "a\\nb"`],
      [{ checks: [{ kind: "contains", file: "f", text: "x\r\ny" }] }, "check 1's text has a line break"],
      [{ success: ["ok", "two\nlines"] }, "criterion 2 has a line break"],
      [{ constraints: ["a\u2028b"] }, "constraint 1 has a line break"],
      [{ nonGoals: ["x\n"] }, "non-goal 1 has a line break"],
      [{ checks: [{ kind: "command", command: "x", timeoutS: 601 }] }, "check 1's timeout 601 s is outside 1..600"],
      [{ objective: "fine\n## not a heading" }, "the objective's line 2 would read as a heading"],
      [{ objective: "  \n " }, "the objective is empty"],
    ]
    for (const [patch, message] of cases) {
      const error = thrown(contractWith(patch))
      expect(error).toBeInstanceOf(DocumentInputError)
      expect((error as Error).message).toContain(message)
    }
  })
})

describe("describeContractChanges and checkLabel", () => {
  it("names each change and nothing for an equal contract (budgets ignored)", () => {
    const before = DOC.contract
    const rebudgeted: GoalContract = { ...before, objective: ` ${before.objective}\n`, budgets: { maxTurns: 3, maxMinutes: 4 } }
    expect(describeContractChanges(before, rebudgeted)).toEqual([])
    const after: GoalContract = {
      ...before,
      objective: "another",
      checks: [
        { kind: "command", command: "npm test", timeoutS: 300 },
        { kind: "command", command: "npm run lint", timeoutS: 120 },
      ],
      success: ["zero failing tests", "x"],
      constraints: [],
      nonGoals: ["refactoring"],
    }
    expect(describeContractChanges(before, after)).toEqual([
      "objective changed",
      "added check 2 `npm run lint`",
      "removed check 2 `src/a.ts` :: `export const A`",
      "check 1's timeout 120 s → 300 s",
      'added criterion "x"',
      'removed constraint "no dependency bumps"',
    ])
    expect(describeContractChanges(before, { ...before, checks: [...before.checks].reverse(), success: [] })).toEqual([
      "checks reordered",
      'removed criterion "zero failing tests"',
    ])
  })

  it("labels a check in one line", () => {
    expect(checkLabel({ kind: "command", command: "npm test", timeoutS: 120 })).toBe("npm test")
    expect(checkLabel({ kind: "contains", file: "src/a.ts", text: "export const A" })).toBe("src/a.ts :: export const A")
  })
})
