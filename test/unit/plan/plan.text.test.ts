import { describe, expect, it } from "vitest"
import { PlanInputError } from "../../../services/plan/plan.errors"
import { replaceExact } from "../../../services/plan/plan.text"

// readWindow's tests moved with it to test/unit/documents/document.window.test.ts.

describe("replaceExact", () => {
  const text = "## Tasks\n- [ ] 1. a\n- [ ] 2. a\n## Acceptance Criteria\n- ok\n"

  it("replaces a unique match and reports the lines it wrote", () => {
    expect(replaceExact(text, "- ok\n", "- ok\n- also fast\n")).toEqual({
      text: "## Tasks\n- [ ] 1. a\n- [ ] 2. a\n## Acceptance Criteria\n- ok\n- also fast\n",
      count: 1,
      touched: [5, 6],
    })
  })

  it("takes the replacement literally", () => {
    expect(replaceExact("cost: X", "X", "$& $1 $$").text).toBe("cost: $& $1 $$")
  })

  it("replaces every occurrence with replaceAll", () => {
    const result = replaceExact(text, "1. a", "1. b", true)
    expect(result.count).toBe(1)
    const all = replaceExact(text, ". a\n", ". z\n", true)
    expect(all).toEqual({ text: text.replace(/\. a\n/g, ". z\n"), count: 2, touched: [2, 3] })
  })

  it("reports a deletion at the line where it happened", () => {
    expect(replaceExact(text, "- ok\n", "").touched).toEqual([4, 4])
    expect(replaceExact(text, "- [ ] 2. a\n", "").touched).toEqual([3, 3])
  })

  it("refuses an ambiguous match, naming the count", () => {
    expect(() => replaceExact(text, ". a", ". b")).toThrow(
      "oldString was found 2 times. Include more surrounding text to make it unique, or set replaceAll to replace every occurrence.",
    )
  })

  it("refuses a missing match, naming the count", () => {
    expect(() => replaceExact(text, "- nope", "- yes")).toThrow(/^oldString was found 0 times in the plan/)
  })

  it("refuses oldString carrying read-window line prefixes, with a hint", () => {
    expect(() => replaceExact(text, "5: - ok", "5: - fine")).toThrow(
      'oldString was found 0 times. It carries plan_read line-number prefixes ("N: ") on 1 line(s); they are not part of the plan. Remove them (without them it matches 1 time).',
    )
    expect(() => replaceExact(text, "2: - [ ] 1. a\n3: - [ ] 2. a", "x")).toThrow(/on 2 line\(s\).*matches 1 time\)/)
  })

  it("accepts a literal number prefix that is really in the text", () => {
    expect(replaceExact("12: noon\n", "12: noon", "12: midday").text).toBe("12: midday\n")
  })

  it("refuses identical strings and an empty oldString on an existing text", () => {
    expect(() => replaceExact(text, "- ok", "- ok")).toThrow("oldString and newString are identical")
    expect(() => replaceExact(text, "", "x")).toThrow(/^oldString is empty/)
  })

  it("refuses a non-string oldString or newString from a caller that skipped validation, instead of searching forever", () => {
    // A number the text contains once sent the search into an endless loop (needle.length was undefined).
    const text = "Sessions survive 40 s of idle.\n"
    expect(() => replaceExact(text, 40 as unknown as string, "x")).toThrow(PlanInputError)
    expect(() => replaceExact(text, 40 as unknown as string, "x")).toThrow(/^oldString must be a string \(got number\)$/)
    expect(() => replaceExact(text, ["40"] as unknown as string, "x")).toThrow(/^oldString must be a string \(got object\)$/)
    expect(() => replaceExact(text, "40", null as unknown as string)).toThrow(/^newString must be a string \(got null\)$/)
  })

  it("answers an oldString that is only a line prefix without searching for the empty rest forever", () => {
    expect(() => replaceExact("a\nb\n", "1: ", "x")).toThrow(
      /^oldString was found 0 times\. It carries plan_read line-number prefixes .* \(without them it matches 0 times\)\.$/,
    )
  })

  it("creates an empty text from an empty oldString", () => {
    expect(replaceExact("", "", "## Tasks\n")).toEqual({ text: "## Tasks\n", count: 1, touched: [1, 1] })
  })
})
