import { describe, expect, it } from "vitest"
import { PlanInputError } from "../../../services/plan/plan.errors"
import { planFileName, slugify } from "../../../services/plan/plan.naming"

describe("slugify", () => {
  it.each([
    ["Fix login timeout", "fix-login-timeout"],
    ["  Fix: the LOGIN   timeout!! ", "fix-the-login-timeout"],
    ["Café crème brûlée", "cafe-creme-brulee"],
    ["修复登录超时", "修复登录超时"],
    ["ログインのバグを直す", "ログインのバグを直す"],
    ["한국어 제목", "한국어-제목"],
    ["Fix 登录 timeout", "fix-登录-timeout"],
    ["ＡＢＣ１２３", "abc123"],
    ["!!!", "plan"],
    ["", "plan"],
    ["Ωμέγα", "plan"],
  ])("%j → %j", (title, slug) => {
    expect(slugify(title)).toBe(slug)
  })

  it("caps the slug at 32 characters without a trailing hyphen", () => {
    expect(slugify("a".repeat(40))).toBe("a".repeat(32))
    expect(slugify(`${"a".repeat(31)} bcd`)).toBe("a".repeat(31))
    expect(Array.from(slugify("超".repeat(40))).length).toBe(32)
  })

  it("only ever yields [a-z0-9-] and CJK letters, never empty", () => {
    for (const title of ["a/b\\c", "x.y_z", "../../etc", "tab\there", "emoji 🚀 launch"]) {
      expect(slugify(title)).toMatch(
        /^[a-z0-9\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+(-[a-z0-9\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+)*$/u,
      )
    }
  })
})

describe("planFileName", () => {
  it("appends -2, -3 on collisions", () => {
    expect(planFileName("2026-11-30", "fix", new Set())).toBe("2026-11-30-fix.md")
    expect(planFileName("2026-11-30", "fix", new Set(["2026-11-30-fix.md"]))).toBe("2026-11-30-fix-2.md")
    expect(planFileName("2026-11-30", "fix", new Set(["2026-11-30-fix.md", "2026-11-30-fix-2.md"]))).toBe("2026-11-30-fix-3.md")
    expect(planFileName("2026-12-01", "fix", new Set(["2026-11-30-fix.md"]))).toBe("2026-12-01-fix.md")
  })

  it("rejects a malformed date or slug", () => {
    expect(() => planFileName("2026-13-01", "fix", new Set())).toThrow(PlanInputError)
    expect(() => planFileName("30.11.2026", "fix", new Set())).toThrow('plan date "30.11.2026" is not YYYY-MM-DD')
    expect(() => planFileName("2026-11-30", "../x", new Set())).toThrow(PlanInputError)
  })
})
