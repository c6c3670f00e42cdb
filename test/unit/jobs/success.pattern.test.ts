// success_pattern as the model writes it: bare, or in the /source/flags form; bad flags and bad regexes are refused
// with an error that names the pattern and says how to write it.
import { describe, expect, it } from "vitest"
import { parseSuccessPattern } from "../../../services/job/success.pattern"

describe("success_pattern", () => {
  it("takes a bare pattern as written, with ^ and $ at line boundaries", () => {
    expect(parseSuccessPattern("listening on \\d+")).toEqual({ text: "listening on \\d+", source: "listening on \\d+", flags: "m" })
  })

  it("reads the /source/flags form, flags from i, m, s and u, m always on", () => {
    expect(parseSuccessPattern("/hello/i")).toEqual({ text: "/hello/i", source: "hello", flags: "mi" })
    expect(parseSuccessPattern("/a.b/smu")).toEqual({ text: "/a.b/smu", source: "a.b", flags: "msu" })
    expect(parseSuccessPattern("/ready/")).toMatchObject({ source: "ready", flags: "m" })
    expect(parseSuccessPattern("/GET \\/health/")).toMatchObject({ source: "GET \\/health" })
  })

  it("takes what only looks like a path as written", () => {
    expect(parseSuccessPattern("/health")).toMatchObject({ source: "/health", flags: "m" })
    expect(parseSuccessPattern("/api/v1")).toMatchObject({ source: "/api/v1", flags: "m" })
    expect(parseSuccessPattern("/")).toMatchObject({ source: "/" })
  })

  it("refuses other flags, naming the pattern and the flag and saying how to write it", () => {
    for (const [pattern, flag] of [
      ["/hello/g", "g"],
      ["/hello/iy", "y"],
      ["/hello/d", "d"],
      ["/hello/I", "I"],
    ] as const) {
      expect(() => parseSuccessPattern(pattern)).toThrow(
        `forge_shell: success_pattern ${JSON.stringify(pattern)}: flag "${flag}" is not supported; write /source/flags with flags from i, m, s, u (e.g. "/ready/i"), or the bare regular expression without slashes (e.g. "ready").`,
      )
    }
  })

  it("refuses an invalid regular expression, naming it", () => {
    expect(() => parseSuccessPattern("ready(")).toThrow(/^forge_shell: success_pattern "ready\(" is not a valid regular expression: /)
    expect(() => parseSuccessPattern("/[a-/i")).toThrow(/^forge_shell: success_pattern "\/\[a-\/i" is not a valid regular expression: /)
  })
})
