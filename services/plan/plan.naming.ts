// Plan file names: `<YYYY-MM-DD>-<slug>.md`, the slug derived from the title.

import { PlanInputError } from "./plan.errors"

export const SLUG_MAX_LENGTH = 32

/** A new plan's title: the one given, else the content's first `# ` heading, else "plan". */
export function planTitleOf(content: string, title?: string): string {
  return title?.trim() || content.match(/^#\s+(.+?)\s*$/m)?.[1] || "plan"
}

// Letters kept besides [a-z0-9]: CJK scripts, so a Chinese or Japanese title still names its file.
const KEPT = /[a-z0-9\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u
const SEPARATORS = /[^a-z0-9\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu

/**
 * Lowercase, `[a-z0-9-]` plus CJK letters, accents dropped from Latin letters, at most 32 characters (code
 * points), no leading, trailing or doubled hyphens; "plan" when nothing is left.
 */
export function slugify(title: string): string {
  const folded = title
    .normalize("NFKD")
    // Only marks on Latin letters go (é → e); Japanese voicing marks belong to their kana.
    .replace(/(\p{Script=Latin})\p{M}+/gu, "$1")
    .normalize("NFC")
    .toLowerCase()
  const slug = Array.from(folded.replace(SEPARATORS, "-").replace(/^-+/, "")).slice(0, SLUG_MAX_LENGTH).join("").replace(/-+$/, "")
  return KEPT.test(slug) ? slug : "plan"
}

const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/

/** `<date>-<slug>.md`, or `<date>-<slug>-2.md`, `-3`, … when the name is in `taken` (plain file names). */
export function planFileName(date: string, slug: string, taken: ReadonlySet<string>): string {
  if (!DATE.test(date)) throw new PlanInputError(`plan date ${JSON.stringify(date)} is not YYYY-MM-DD`)
  if (slug === "" || /[/\\]/.test(slug)) throw new PlanInputError(`plan slug ${JSON.stringify(slug)} is not a slug`)
  let name = `${date}-${slug}.md`
  for (let n = 2; taken.has(name); n++) name = `${date}-${slug}-${n}.md`
  return name
}
