// forge_fetch's network side: one GET over http(s) with Node's fetch, redirects followed by hand (each hop's scheme
// checked, their number bounded), the whole exchange within one time budget and the body within a byte budget.
// The Content-Type decides what happens: HTML becomes markdown (unless raw), other text is decoded as served,
// anything else is refused before its body is read.
import type { FetchedContent, WebFetch } from "../../services/files/fetch.ports"
import { type MediaType, mediaTypeOf } from "../../services/files/fetch.media"
import { FetchRefusal, networkFailure } from "./fetch.errors"
import type { PageMarkdown } from "./html.markdown"
import { CONVERT_LIMITS, type ConvertLimits, ConversionRefused, convertHtml } from "./html.convert"
import { bomCharset, decodeBody, readBody } from "./response.body"

export interface WebFetchOptions {
  /** The whole fetch (connecting, redirects, the body), in ms. */
  timeoutMs?: number
  /** Body bytes read at most (after any content encoding is undone); a larger body is refused. */
  maxBytes?: number
  /** Redirects followed at most. */
  maxRedirects?: number
  /**
   * HTML bytes converted to markdown at most; a larger page is given as served, with a note. The conversion runs in a
   * worker thread, yet still costs time: 8 MB of HTML took 24 s, 2 MB about 2.5 s.
   */
  maxConvertBytes?: number
  /** Nesting of HTML elements converted at most; a deeper page is refused (parsing it takes time quadratic in it). */
  maxConvertDepth?: number
  /** Time the conversion to markdown may take, in ms; past it the worker is stopped and the page refused. */
  convertTimeoutMs?: number
}

export const WEB_FETCH_LIMITS = {
  timeoutMs: 30_000,
  maxBytes: 10 * 1024 * 1024,
  maxRedirects: 5,
  maxConvertBytes: 2 * 1024 * 1024,
  maxConvertDepth: CONVERT_LIMITS.maxDepth,
  convertTimeoutMs: CONVERT_LIMITS.timeoutMs,
} as const

/** Of an error page, this much is read for its excerpt. */
const ERROR_BODY_BYTES = 16 * 1024
const ERROR_EXCERPT_CHARS = 300

const REQUEST_HEADERS = {
  "user-agent": "Mozilla/5.0 (compatible; forgecharts forge_fetch)",
  accept: "text/html, application/xhtml+xml, text/markdown;q=0.9, text/plain;q=0.9, application/json;q=0.8, */*;q=0.5",
}

export function createWebFetch(options: WebFetchOptions = {}): WebFetch {
  const limits = { ...WEB_FETCH_LIMITS, ...options }
  return {
    async fetch(url, { raw }) {
      const start = httpUrl(url, url)
      const controller = new AbortController()
      const timer = setTimeout(() => controller.abort(), limits.timeoutMs)
      try {
        const { response, finalUrl } = await follow(start, controller.signal, limits.maxRedirects)
        const convert: ConvertLimits = { ...CONVERT_LIMITS, maxDepth: limits.maxConvertDepth, timeoutMs: limits.convertTimeoutMs }
        if (!response.ok) throw await httpError(response, finalUrl, convert)
        return await readContent(response, { url, finalUrl, raw, maxBytes: limits.maxBytes, maxConvertBytes: limits.maxConvertBytes, convert })
      } catch (error) {
        if (error instanceof FetchRefusal) throw error
        if (controller.signal.aborted) throw new FetchRefusal(`forge_fetch: ${url} did not finish within ${limits.timeoutMs / 1000} s (timed out).`)
        throw networkFailure(url, error)
      } finally {
        clearTimeout(timer)
      }
    },
  }
}

/** The URL, when it is a whole http or https URL; `asked` is what the model gave, for the message. */
function httpUrl(text: string, asked: string): URL {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new FetchRefusal(`forge_fetch: ${JSON.stringify(text)} is not a valid URL; give it whole, e.g. "https://example.com/page".`)
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    const via = text === asked ? "" : ` (where ${asked} redirected)`
    throw new FetchRefusal(`forge_fetch: the scheme "${url.protocol.slice(0, -1)}" of ${text}${via} is not supported; only http and https URLs are fetched.`)
  }
  return url
}

const REDIRECTS = new Set([301, 302, 303, 307, 308])

async function follow(start: URL, signal: AbortSignal, maxRedirects: number): Promise<{ response: Response; finalUrl: string }> {
  let current = start
  for (let hops = 0; ; hops++) {
    const response = await fetch(current, { redirect: "manual", signal, headers: REQUEST_HEADERS })
    const location = response.headers.get("location")
    if (!REDIRECTS.has(response.status) || location === null) return { response, finalUrl: current.href }
    await response.body?.cancel().catch(() => undefined)
    const next = resolveUrl(location, current)
    if (next === undefined) throw new FetchRefusal(`forge_fetch: ${current.href} redirected to ${JSON.stringify(location)}, which is no valid URL.`)
    if (hops >= maxRedirects) throw new FetchRefusal(`forge_fetch: ${start.href} redirected more than ${maxRedirects} times (the last to ${next.href}).`)
    current = httpUrl(next.href, start.href)
  }
}

function resolveUrl(location: string, base: URL): URL | undefined {
  try {
    return new URL(location, base)
  } catch {
    return undefined
  }
}

/** An HTTP error: the status and the start of what the server said about it. */
async function httpError(response: Response, finalUrl: string, convert: ConvertLimits): Promise<FetchRefusal> {
  const media = mediaTypeOf(response.headers.get("content-type"))
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`
  let excerpt = ""
  if (media.kind !== "refused") {
    const { bytes } = await readBody(response.body, ERROR_BODY_BYTES).catch(() => ({ bytes: new Uint8Array(0) }))
    const text = decodeBody(bytes, media.charset, media.kind === "html").text
    let readable = text
    if (media.kind === "html") {
      try {
        readable = (await convertHtml(text, finalUrl, convert)).markdown
      } catch (error) {
        if (!(error instanceof ConversionRefused)) throw error
        return new FetchRefusal(`forge_fetch: ${finalUrl} answered ${status} (its page could not be read: ${error.message}).`)
      }
    }
    const flat = readable.replace(/\s+/g, " ").trim()
    excerpt = flat.length > ERROR_EXCERPT_CHARS ? `${flat.slice(0, ERROR_EXCERPT_CHARS)}…` : flat
  } else {
    await response.body?.cancel().catch(() => undefined)
  }
  return new FetchRefusal(`forge_fetch: ${finalUrl} answered ${status}${excerpt ? `: ${excerpt}` : " (no text in the response)."}`)
}

interface ReadRequest {
  url: string
  finalUrl: string
  raw: boolean
  maxBytes: number
  maxConvertBytes: number
  convert: ConvertLimits
}

async function readContent(response: Response, request: ReadRequest): Promise<FetchedContent> {
  const { finalUrl, maxBytes } = request
  const declared = contentLength(response)
  const media = mediaTypeOf(response.headers.get("content-type"))
  if (media.kind === "refused" && media.type !== "") {
    await response.body?.cancel().catch(() => undefined)
    const size = declared === undefined ? "size not given" : describeBytes(declared)
    throw new FetchRefusal(`forge_fetch: ${finalUrl} is ${media.type} (${size}), not text; forge_fetch reads HTML and text (text/*, JSON, XML) only.`)
  }
  if (declared !== undefined && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined)
    throw tooLarge(finalUrl, `${describeBytes(declared)}`, maxBytes)
  }
  const { bytes, overflow } = await readBody(response.body, maxBytes)
  if (overflow) throw tooLarge(finalUrl, `more than ${describeBytes(maxBytes)}`, maxBytes)
  const kind = media.type === "" ? sniff(bytes, finalUrl) : media.kind
  const decoded = decodeBody(bytes, media.charset, kind === "html")
  const base = { url: request.url, finalUrl, mediaType: media.type, notes: decoded.note ? [decoded.note] : [] }
  if (kind !== "html" || request.raw) return { ...base, form: "as served", content: decoded.text }
  if (bytes.length > request.maxConvertBytes) {
    const note = `Note: the page is ${describeBytes(bytes.length)} of HTML, more than the ${describeBytes(request.maxConvertBytes)} converted to markdown; it is given as served.`
    return { ...base, form: "as served", content: decoded.text, notes: [...base.notes, note] }
  }
  const page = await markdownOf(decoded.text, finalUrl, request.convert)
  return { ...base, form: "markdown", content: page.markdown, title: page.title }
}

/** The page as markdown; a conversion over a limit is refused whole, naming the limit (never a part shown as all). */
async function markdownOf(html: string, finalUrl: string, convert: ConvertLimits): Promise<PageMarkdown> {
  try {
    return await convertHtml(html, finalUrl, convert)
  } catch (error) {
    if (!(error instanceof ConversionRefused)) throw error
    const rawHint = "nothing was converted. Call forge_fetch with raw: true for the HTML as served."
    switch (error.limit) {
      case "depth":
        return refuse(`forge_fetch: ${finalUrl} ${error.message.replace(/^it /, "")}, over the limit for converting a page to markdown; ${rawHint}`)
      case "time":
      case "memory":
        return refuse(`forge_fetch: ${error.message.replace("converting it", `converting ${finalUrl}`)}; ${rawHint}`)
      case "failed":
        return refuse(`forge_fetch: could not convert ${finalUrl} to markdown: ${error.message}; ${rawHint}`)
    }
  }
}

function refuse(message: string): never {
  throw new FetchRefusal(message)
}

/** A response without a Content-Type: text unless a NUL in its first 8 KB says binary; HTML when it opens like HTML. */
function sniff(bytes: Uint8Array, finalUrl: string): MediaType["kind"] {
  // UTF-16 text is full of NULs; its byte order mark says it is text.
  if (bytes.subarray(0, 8192).includes(0) && bomCharset(bytes) === undefined) {
    throw new FetchRefusal(`forge_fetch: ${finalUrl} sent binary content (${describeBytes(bytes.length)}) without a Content-Type; forge_fetch reads text only.`)
  }
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 512))
  return /^\s*(<!doctype html|<html)/i.test(head) ? "html" : "text"
}

function contentLength(response: Response): number | undefined {
  const header = response.headers.get("content-length")
  const value = header === null ? Number.NaN : Number(header)
  return Number.isFinite(value) && value >= 0 ? value : undefined
}

function tooLarge(finalUrl: string, size: string, maxBytes: number): FetchRefusal {
  return new FetchRefusal(`forge_fetch: ${finalUrl} is too large (${size}); forge_fetch reads at most ${describeBytes(maxBytes)}.`)
}

function describeBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}
