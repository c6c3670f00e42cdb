// forge_fetch's answer: one window of the fetched content, paged by start_index and max_length, with a heading that
// says what was fetched and a closing notice with the start_index of the rest. Pages joined give the whole content.
import type { FetchedContent } from "./fetch.ports"
import { cutIndex } from "./text.cut"

export const DEFAULT_FETCH_MAX_LENGTH = 40_000

export interface FetchPaging {
  /** Characters (UTF-16 code units) to skip; 0 by default. */
  startIndex: number
  /** Characters in the window at most; 40,000 by default. */
  maxLength: number
}

export interface ContentWindow {
  text: string
  /** Where the window starts and ends in the whole content. */
  start: number
  end: number
  total: number
}

/**
 * The window of `content` the paging asks for: never a split character (the window may end one code unit early),
 * an error naming the content's length when `startIndex` is past its end.
 */
export function contentWindow(content: string, paging: FetchPaging): ContentWindow {
  const { startIndex, maxLength } = paging
  if (!Number.isInteger(startIndex) || startIndex < 0) throw new Error(`forge_fetch: start_index must be a whole number ≥ 0, not ${startIndex}.`)
  if (!Number.isInteger(maxLength) || maxLength < 1) throw new Error(`forge_fetch: max_length must be a whole number ≥ 1, not ${maxLength}.`)
  const total = content.length
  if (startIndex > 0 && startIndex >= total) {
    throw new Error(
      `forge_fetch: start_index ${startIndex} is past the end: the content has ${number(total)} characters` +
        (total > 0 ? ` (start_index 0 to ${total - 1}).` : "."),
    )
  }
  let end = cutIndex(content, Math.min(total, startIndex + maxLength))
  // A one-character window on a surrogate pair would be empty: take the whole pair instead.
  if (end === startIndex && startIndex < total) end = Math.min(total, startIndex + 2)
  return { text: content.slice(startIndex, end), start: startIndex, end, total }
}

/**
 * The model's text: heading, window, and the notice of the rest when the window ends before the content does. Paging
 * defaults to the first 40,000 characters.
 */
export function fetchAnswer(fetched: FetchedContent, paging: Partial<FetchPaging> = {}): string {
  const window = contentWindow(fetched.content, { startIndex: paging.startIndex ?? 0, maxLength: paging.maxLength ?? DEFAULT_FETCH_MAX_LENGTH })
  const heading = [
    `URL: ${fetched.finalUrl}${fetched.finalUrl === fetched.url ? "" : ` (redirected from ${fetched.url})`}`,
    ...(fetched.title ? [`Title: ${fetched.title}`] : []),
    `Content-Type: ${fetched.mediaType || "not given"}${fetched.form === "markdown" ? ", converted to markdown" : ""}`,
    ...(window.start > 0 || window.end < window.total ? [`Characters ${number(window.start)} to ${number(window.end)} of ${number(window.total)}`] : []),
    ...fetched.notes,
  ].join("\n")
  const body = window.total === 0 ? "(the response has no content)" : window.text
  const rest =
    window.end < window.total
      ? `\n\n… content truncated: call forge_fetch again with start_index=${window.end} for the rest (${number(window.total)} characters in all)`
      : ""
  return `${heading}\n\n${body}${rest}`
}

const number = (n: number): string => n.toLocaleString("en-US")
