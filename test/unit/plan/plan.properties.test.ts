// Property tests for the codec's promises: render/parse round-trips, and writers that touch only their own bytes.

import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { appendNarrative, parsePlanDocument, renderPlanDocument, tickTask, withFrontmatter } from "../../../services/plan/plan.document"
import { splitLines } from "../../../services/documents/markdown.scan"
import { slugify } from "../../../services/plan/plan.naming"
import { replaceExact } from "../../../services/plan/plan.text"
import type { NarrativeEntry, PlanFrontmatter, PlanStatus } from "../../../services/plan/plan.types"

const SOURCE = ".opencode/plan/prop.md"
const RUNS = { numRuns: 300 }

const anyText = fc.string({ unit: "binary", maxLength: 40 })
const oneLine = anyText.filter((s) => s.trim() !== "" && !/[\r\n\u2028\u2029]/.test(s))
const iso = fc.date({ min: new Date("1970-01-01T00:00:00.000Z"), max: new Date("9999-12-31T23:59:59.999Z"), noInvalidDate: true }).map((d) => d.toISOString())
const status = fc.constantFrom<PlanStatus>("draft", "approved", "done", "abandoned", "superseded")

const frontmatter: fc.Arbitrary<PlanFrontmatter> = fc
  .record({ status, title: oneLine, created: iso, updated: iso, session: fc.option(oneLine), successor: oneLine })
  .map(({ session, successor, ...rest }) => {
    const fm: PlanFrontmatter = { ...rest }
    if (session !== null) fm.session = session
    if (rest.status === "superseded") fm.successor = successor
    return fm
  })

/** Prose that cannot open a heading, a fence, a list item or a marker: it always starts with a letter. */
const prose = fc.array(
  anyText.map((s) => `p ${s.replace(/[\r\n\u2028\u2029]/g, " ")}`),
  { maxLength: 4 },
)
const taskText = oneLine.filter((s) => !s.includes("<!--"))

interface BodySpec {
  body: string
  taskCount: number
  ticked: boolean[]
}

const body: fc.Arbitrary<BodySpec> = fc
  .record({
    before: prose,
    tasks: fc.array(fc.record({ text: taskText, ticked: fc.boolean() }), { minLength: 1, maxLength: 6 }),
    between: prose,
    criteria: fc.array(oneLine, { minLength: 1, maxLength: 4 }),
    after: prose,
    finalNewline: fc.boolean(),
  })
  .map(({ before, tasks, between, criteria, after, finalNewline }) => {
    const lines = [
      ...before,
      "## Tasks",
      ...tasks.map((t, i) => `- [${t.ticked ? "x" : " "}] ${i + 1}. ${t.text.trim()}`),
      ...between,
      "## Acceptance Criteria",
      ...criteria.map((c) => `- ${c.trim()}`),
      ...after,
    ]
    return {
      body: lines.join("\n") + (finalNewline ? "\n" : ""),
      taskCount: tasks.length,
      ticked: tasks.map((t) => t.ticked),
    }
  })

describe("render / parse round-trip", () => {
  it("gives back the frontmatter and the body exactly", () => {
    fc.assert(
      fc.property(frontmatter, body, (fm, spec) => {
        const doc = parsePlanDocument(renderPlanDocument(fm, spec.body), SOURCE)
        expect(doc.frontmatter).toEqual(fm)
        expect(doc.body).toBe(spec.body)
        expect(doc.tasks.map((t) => t.ticked)).toEqual(spec.ticked)
      }),
      RUNS,
    )
  })
})

describe("writers change no other byte", () => {
  it("tickTask rewrites exactly the ticked task's line", () => {
    fc.assert(
      fc.property(frontmatter, body, iso, fc.nat(), (fm, spec, at, pick) => {
        const open = spec.ticked.flatMap((t, i) => (t ? [] : [i + 1]))
        fc.pre(open.length > 0)
        const task = open[pick % open.length] ?? 1
        const text = renderPlanDocument(fm, spec.body)
        const before = parsePlanDocument(text, SOURCE)
        const next = tickTask(text, SOURCE, task, at)
        const line = (before.tasks[task - 1]?.line ?? 0) - 1
        const a = text.split("\n")
        const b = next.split("\n")
        expect(b.length).toBe(a.length)
        b.forEach((l, i) => {
          if (i !== line) expect(l).toBe(a[i])
        })
        const after = parsePlanDocument(next, SOURCE)
        expect(after.tasks.map((t) => t.ticked)).toEqual(spec.ticked.map((t, i) => t || i + 1 === task))
        expect(after.tasks[task - 1]?.tickedAt).toBe(at)
        expect(after.tasks[task - 1]?.text).toBe(before.tasks[task - 1]?.text)
      }),
      RUNS,
    )
  })

  it("withFrontmatter sets the patched keys and leaves the body and untouched keys as they were", () => {
    const patch = fc.record(
      { status: fc.constantFrom<PlanStatus>("draft", "approved", "done", "abandoned"), title: oneLine, updated: iso, session: oneLine },
      { requiredKeys: [] },
    )
    fc.assert(
      fc.property(frontmatter, body, patch, (fm, spec, p) => {
        const base: PlanFrontmatter = { ...fm, status: fm.status === "superseded" ? "done" : fm.status }
        delete base.successor
        const text = renderPlanDocument(base, spec.body)
        const next = withFrontmatter(text, SOURCE, p)
        const doc = parsePlanDocument(next, SOURCE)
        expect(doc.frontmatter).toEqual({ ...base, ...p })
        expect(doc.body).toBe(spec.body)
        const untouched = splitLines(text.slice(0, text.length - spec.body.length)).filter((l) => !Object.keys(p).some((k) => l.startsWith(`${k}:`)))
        const nextLines = splitLines(next)
        for (const l of untouched) expect(nextLines).toContain(l)
      }),
      RUNS,
    )
  })

  it("appendNarrative only appends, and the parse result does not move whatever the text says", () => {
    const entry: fc.Arbitrary<NarrativeEntry> = fc.oneof(
      fc.record({
        at: iso,
        kind: fc.constant("closed" as const),
        results: fc.array(fc.record({ criterion: anyText, pass: fc.boolean(), evidence: anyText }), { maxLength: 3 }),
      }),
      fc.record({ at: iso, kind: fc.constant("abandoned" as const), reason: fc.option(anyText, { nil: undefined }) }),
      fc.record({
        at: iso,
        kind: fc.constant("superseded" as const),
        reason: fc.option(anyText, { nil: undefined }),
        successor: oneLine,
      }),
    )
    fc.assert(
      fc.property(frontmatter, body, fc.array(entry, { minLength: 1, maxLength: 3 }), (fm, spec, entries) => {
        const text = renderPlanDocument(fm, spec.body)
        const before = parsePlanDocument(text, SOURCE)
        let next = text
        for (const e of entries) {
          const appended = appendNarrative(next, e)
          expect(appended.startsWith(next.endsWith("\n") ? next : `${next}\n`)).toBe(true)
          next = appended
        }
        const after = parsePlanDocument(next, SOURCE)
        expect(after.frontmatter).toEqual(before.frontmatter)
        expect([after.tasks, after.criteria, after.phases, after.outline]).toEqual([before.tasks, before.criteria, before.phases, before.outline])
        const tail = splitLines(next).slice(splitLines(text).length + 2)
        for (const l of tail) expect(l === "" || l.startsWith(">") || /^## \S+ — (closed|abandoned|superseded)$/.test(l)).toBe(true)
      }),
      RUNS,
    )
  })
})

describe("text tools", () => {
  // readWindow's continuation property moved with it to test/unit/documents/document.window.test.ts.

  it("replaceExact with replaceAll equals split/join and counts every occurrence", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), fc.string({ minLength: 1, maxLength: 3 }), fc.string({ maxLength: 5 }), (text, old, rep) => {
        fc.pre(old !== rep && text.includes(old))
        const result = replaceExact(text, old, rep, true)
        expect(result.text).toBe(text.split(old).join(rep))
        expect(result.count).toBe(text.split(old).length - 1)
        expect(result.touched[0]).toBeGreaterThanOrEqual(1)
        expect(result.touched[1]).toBeGreaterThanOrEqual(result.touched[0])
      }),
      RUNS,
    )
  })
})

describe("slugify", () => {
  it("yields a short, safe, non-empty, stable slug for any title", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 60 }), (title) => {
        const slug = slugify(title)
        expect(slug).toMatch(/^[a-z0-9\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}-]+$/u)
        expect(slug.startsWith("-") || slug.endsWith("-") || slug.includes("--")).toBe(false)
        expect(Array.from(slug).length).toBeLessThanOrEqual(32)
        expect(slugify(slug)).toBe(slug)
      }),
      RUNS,
    )
  })
})
