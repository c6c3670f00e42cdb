// How deep a page nests its elements, found in one linear pass before any parser sees the page: the HTML parser and
// the markdown converter both take time quadratic in the nesting and recurse once per level, so 200 KB of nested
// <div>s held a thread for seconds and then overflowed its stack. The count follows the parser closely enough:
// void elements and elements whose end tag may be left out (p, li, td...) never deepen it, an end tag closes what
// it closes, and raw text (scripts, styles, comments) is skipped whole.

const VOID = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
  "keygen",
  "frame",
  "basefont",
  "bgsound",
])
/** End tags the parser infers: an unclosed one is closed by its next sibling, so it never stacks up. */
const OPTIONAL_END = new Set([
  "li",
  "dt",
  "dd",
  "p",
  "rt",
  "rp",
  "optgroup",
  "option",
  "colgroup",
  "caption",
  "thead",
  "tbody",
  "tfoot",
  "tr",
  "td",
  "th",
  "html",
  "head",
  "body",
])
/** Elements whose content is text up to their own end tag. */
const RAW_TEXT = new Set(["script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes"])
/** Inside these, `<x/>` closes itself (in HTML proper the slash is ignored). */
const FOREIGN = new Set(["svg", "math"])

/** The page's deepest nesting, or `limit + 1` as soon as it passes `limit` (the scan stops there). */
export function nestingDepth(html: string, limit: number): number {
  const stack: string[] = []
  const open = new Map<string, number>()
  let foreign = 0
  let deepest = 0
  const close = (name: string): void => {
    if ((open.get(name) ?? 0) === 0) return
    for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
      open.set(top, (open.get(top) ?? 1) - 1)
      if (FOREIGN.has(top)) foreign--
      if (top === name) return
    }
  }
  for (let at = html.indexOf("<"); at !== -1 && at < html.length - 1; at = at === -1 ? -1 : html.indexOf("<", at)) {
    const next = html.charCodeAt(at + 1)
    if (html.startsWith("<!--", at)) {
      at = skipPast(html, "-->", at + 4)
    } else if (next === 33 /* ! */ || next === 63 /* ? */) {
      at = skipPast(html, ">", at + 2)
    } else if (next === 47 /* / */) {
      close(tagName(html, at + 2))
      at = skipPast(html, ">", at + 2)
    } else {
      const name = tagName(html, at + 1)
      if (name === "") {
        at++
        continue
      }
      const end = tagEnd(html, at + 1 + name.length)
      // A tag the document never closes, or <plaintext>, ends the markup: the rest is text.
      if (end === -1 || name === "plaintext") break
      at = RAW_TEXT.has(name) ? skipPast(html, `</${name}`, end, true) : end
      const selfClosing = html.charCodeAt(end - 2) === 47 && foreign > 0
      if (RAW_TEXT.has(name) || VOID.has(name) || OPTIONAL_END.has(name) || selfClosing) continue
      stack.push(name)
      open.set(name, (open.get(name) ?? 0) + 1)
      if (FOREIGN.has(name)) foreign++
      if (stack.length > deepest) {
        deepest = stack.length
        if (deepest > limit) return deepest
      }
    }
  }
  return deepest
}

/** The lower-case tag name starting at `from` ("" when no letter starts there). */
function tagName(html: string, from: number): string {
  let end = from
  const first = html.charCodeAt(from) | 0x20
  if (first < 97 || first > 122) return ""
  while (end < html.length) {
    const c = html.charCodeAt(end)
    // A name runs to whitespace, "/" or ">".
    if (c === 32 || c === 9 || c === 10 || c === 12 || c === 13 || c === 47 || c === 62) break
    end++
  }
  return html.slice(from, end).toLowerCase()
}

/** Just past the ">" that ends a start tag begun before `from`, quoted attribute values skipped; -1 when none. */
function tagEnd(html: string, from: number): number {
  let quote = 0
  for (let i = from; i < html.length; i++) {
    const c = html.charCodeAt(i)
    if (quote !== 0) {
      if (c === quote) quote = 0
    } else if (c === 34 || c === 39) {
      // A quote opens a value only after "="; elsewhere it is part of a (malformed) name.
      let j = i - 1
      while (j >= from && (html.charCodeAt(j) === 32 || html.charCodeAt(j) === 9 || html.charCodeAt(j) === 10)) j--
      if (html.charCodeAt(j) === 61) quote = c
    } else if (c === 62) return i + 1
  }
  return -1
}

/** Just past the first `token` at or after `from` (case-insensitively when asked); -1 when there is none. */
function skipPast(html: string, token: string, from: number, caseless = false): number {
  if (!caseless) {
    const found = html.indexOf(token, from)
    return found === -1 ? -1 : found + token.length
  }
  // An end tag may be written in any case; look for "</" and compare the name (no lower-cased copy of the page).
  for (let found = html.indexOf("</", from); found !== -1; found = html.indexOf("</", found + 2)) {
    if (html.slice(found, found + token.length).toLowerCase() === token) return found + token.length
  }
  return -1
}
