// forge_fetch's paging and answer text: windows by start_index and max_length that join to the whole content, a
// notice naming the start_index of the rest, a start_index past the end refused with the content's length.
import { describe, expect, it } from "vitest"
import { contentWindow, fetchAnswer } from "../../../services/files/fetch.page"
import type { FetchedContent } from "../../../services/files/fetch.ports"

const fetched = (content: string, over: Partial<FetchedContent> = {}): FetchedContent => ({
  url: "https://example.com/a",
  finalUrl: "https://example.com/a",
  mediaType: "text/html",
  form: "markdown",
  content,
  notes: [],
  ...over,
})

describe("contentWindow", () => {
  it("pages through the content; the windows join to the whole", () => {
    const content = "abcdefghij".repeat(7)
    const pages: string[] = []
    for (let start = 0; start < content.length; ) {
      const window = contentWindow(content, { startIndex: start, maxLength: 16 })
      pages.push(window.text)
      start = window.end
    }
    expect(pages).toHaveLength(5)
    expect(pages.join("")).toBe(content)
  })

  it("never splits a character: a window ends one code unit early instead, and pages still join", () => {
    const content = "ab😀cd😀😀e"
    const pages: string[] = []
    for (let start = 0; start < content.length; ) {
      const window = contentWindow(content, { startIndex: start, maxLength: 3 })
      expect(window.text).not.toMatch(/[\ud800-\udbff]$/)
      pages.push(window.text)
      start = window.end
    }
    expect(pages.join("")).toBe(content)
    // A window of one on a pair takes the pair whole rather than nothing.
    expect(contentWindow("😀", { startIndex: 0, maxLength: 1 }).text).toBe("😀")
  })

  it("refuses a start_index past the end, naming the content's length", () => {
    expect(() => contentWindow("x".repeat(1234), { startIndex: 1234, maxLength: 10 })).toThrow(
      "forge_fetch: start_index 1234 is past the end: the content has 1,234 characters (start_index 0 to 1233).",
    )
    expect(() => contentWindow("", { startIndex: 5, maxLength: 10 })).toThrow("forge_fetch: start_index 5 is past the end: the content has 0 characters.")
    expect(contentWindow("", { startIndex: 0, maxLength: 10 })).toEqual({ text: "", start: 0, end: 0, total: 0 })
  })

  it("refuses a negative or fractional start_index and a max_length under 1", () => {
    expect(() => contentWindow("abc", { startIndex: -1, maxLength: 10 })).toThrow("forge_fetch: start_index must be a whole number ≥ 0, not -1.")
    expect(() => contentWindow("abc", { startIndex: 0.5, maxLength: 10 })).toThrow("start_index must be a whole number")
    expect(() => contentWindow("abc", { startIndex: 0, maxLength: 0 })).toThrow("forge_fetch: max_length must be a whole number ≥ 1, not 0.")
  })
})

describe("fetchAnswer", () => {
  it("heads the content with what was fetched, and shows the whole of a short page without a notice", () => {
    expect(fetchAnswer(fetched("# Hi", { title: "Greeting" }))).toBe(
      "URL: https://example.com/a\nTitle: Greeting\nContent-Type: text/html, converted to markdown\n\n# Hi",
    )
  })

  it("names the redirect, the window and the start_index of the rest", () => {
    const answer = fetchAnswer(fetched("x".repeat(50_000), { finalUrl: "https://example.com/b", form: "as served", mediaType: "text/plain" }), {
      startIndex: 0,
      maxLength: 40_000,
    })
    expect(answer.split("\n\n")[0]).toBe(
      "URL: https://example.com/b (redirected from https://example.com/a)\nContent-Type: text/plain\nCharacters 0 to 40,000 of 50,000",
    )
    expect(answer.endsWith("\n\n… content truncated: call forge_fetch again with start_index=40000 for the rest (50,000 characters in all)")).toBe(true)
    const last = fetchAnswer(fetched("x".repeat(50_000)), { startIndex: 40_000, maxLength: 40_000 })
    expect(last).toContain("Characters 40,000 to 50,000 of 50,000\n\n")
    expect(last).not.toContain("truncated")
  })

  it("shows 40,000 characters unless told otherwise", () => {
    expect(fetchAnswer(fetched("x".repeat(40_001)))).toContain("call forge_fetch again with start_index=40000 for the rest (40,001 characters in all)")
    expect(fetchAnswer(fetched("x".repeat(40_000)))).not.toContain("truncated")
  })

  it("says so when the response has no content, and carries the adapter's notes", () => {
    expect(fetchAnswer(fetched("", { notes: ['Note: charset "x-klingon" is unknown here; read as UTF-8.'] }), { startIndex: 0, maxLength: 10 })).toBe(
      'URL: https://example.com/a\nContent-Type: text/html, converted to markdown\nNote: charset "x-klingon" is unknown here; read as UTF-8.\n\n(the response has no content)',
    )
  })
})
