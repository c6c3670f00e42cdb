// Which responses forge_fetch reads, by their Content-Type: HTML is converted, other text is taken as served,
// everything else (images, PDFs, archives, octet-streams) is refused before its body is read.

export type MediaKind = "html" | "text" | "refused"

export interface MediaType {
  /** Lower-case, without parameters ("text/html"); "" when the header is missing. */
  type: string
  /** The charset parameter, when given ("iso-8859-1"). */
  charset?: string
  kind: MediaKind
}

// Text that is not text/*: data and code formats a model reads like any text.
const TEXT_TYPES = new Set([
  "application/json",
  "application/xml",
  "application/javascript",
  "application/ecmascript",
  "application/x-javascript",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
  "application/x-ndjson",
  "application/x-sh",
])

/** Reads a Content-Type header value. A missing one is "refused" here; the adapter may look at the body instead. */
export function mediaTypeOf(header: string | null | undefined): MediaType {
  const [essence = "", ...params] = (header ?? "").split(";")
  const type = essence.trim().toLowerCase()
  const charsetParam = params.map((p) => p.trim()).find((p) => p.toLowerCase().startsWith("charset="))
  const charset =
    charsetParam
      ?.slice("charset=".length)
      .trim()
      .replace(/^"(.*)"$/, "$1") || undefined
  return { type, charset, kind: kindOf(type) }
}

function kindOf(type: string): MediaKind {
  if (type === "text/html" || type === "application/xhtml+xml") return "html"
  if (type.startsWith("text/") || TEXT_TYPES.has(type) || type.endsWith("+json") || type.endsWith("+xml")) return "text"
  return "refused"
}
