// What the HTML-to-markdown worker is given and what it answers (structured-cloned across the thread boundary).

export interface ConvertRequest {
  html: string
  baseUrl: string
  /** Nesting of elements converted at most; a deeper page is refused unparsed. */
  maxDepth: number
}

export type ConvertReply = { kind: "converted"; markdown: string; title?: string } | { kind: "too-deep" } | { kind: "failed"; message: string }
