// What forge_fetch needs from the world: one URL's content as text. adapters/network/web.fetch.ts fetches it over
// HTTP(S) and converts HTML; refusals (a scheme, a content type, a size, an HTTP error, the network) are thrown as
// errors whose message is the model's answer.

export interface FetchedContent {
  /** The URL asked for. */
  url: string
  /** Where the content came from, after redirects. */
  finalUrl: string
  /** The media type as served, lower-case, without parameters ("text/html"). */
  mediaType: string
  /** "markdown": converted from HTML; "as served": the body's text, decoded. */
  form: "markdown" | "as served"
  content: string
  /** An HTML page's <title>, when it has one. */
  title?: string
  /** What the reader should know about how the content was read (an unknown charset read as UTF-8, ...). */
  notes: string[]
}

export interface WebFetch {
  /** `raw`: HTML as served instead of converted to markdown. */
  fetch(url: string, options: { raw: boolean }): Promise<FetchedContent>
}
