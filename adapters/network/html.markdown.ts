// HTML to markdown for forge_fetch, by turndown: what a reader sees of a page, not how the page is built. Scripts,
// styles and other non-content are dropped; links and images point at absolute URLs (the model can fetch them);
// inline data: images, often many kilobytes of base64, are reduced to their alt text.
import TurndownService from "turndown"

/** Elements with no readable content, or content that only a browser runs or draws. */
const DROPPED = ["script", "style", "noscript", "template", "iframe", "object", "embed", "canvas", "svg"]

/** The little of a DOM element the rules read (the package's types name the DOM, which this project does not load). */
interface Element {
  getAttribute(name: string): string | null
}

export interface PageMarkdown {
  markdown: string
  title?: string
}

/** The page as markdown, relative links resolved against `baseUrl` (where the page was fetched from). */
export function htmlToMarkdown(html: string, baseUrl: string): PageMarkdown {
  let title: string | undefined
  const service = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" })
  service.remove(DROPPED as TurndownService.Filter)
  service.addRule("title", {
    filter: "title" as TurndownService.Filter,
    replacement: (content) => {
      title ??= content.replace(/\s+/g, " ").trim() || undefined
      return ""
    },
  })
  service.addRule("absoluteLink", {
    filter: (node) => node.nodeName === "A" && Boolean((node as unknown as Element).getAttribute("href")),
    replacement: (content, node) => {
      const element = node as unknown as Element
      const href = absolute(element.getAttribute("href") as string, baseUrl)
      if (href === undefined) return content
      const titleAttr = element.getAttribute("title")?.replace(/\s+/g, " ").trim()
      return `[${content}](${escapeUrl(href)}${titleAttr ? ` "${titleAttr.replace(/"/g, '\\"')}"` : ""})`
    },
  })
  service.addRule("image", {
    filter: "img" as TurndownService.Filter,
    replacement: (_content, node) => {
      const element = node as unknown as Element
      const alt = (element.getAttribute("alt") ?? "").replace(/\s+/g, " ").trim()
      const src = element.getAttribute("src") ?? ""
      if (src.startsWith("data:") || src === "") return alt ? `[image: ${alt}]` : ""
      const url = absolute(src, baseUrl)
      return url === undefined ? alt : `![${alt}](${escapeUrl(url)})`
    },
  })
  const markdown = service.turndown(html).trim()
  return { markdown, title }
}

/** The link as an absolute URL; a javascript: link is none (its text is kept, the script is not). */
function absolute(href: string, baseUrl: string): string | undefined {
  if (href.startsWith("#")) return href
  try {
    const url = new URL(href, baseUrl)
    return url.protocol === "javascript:" ? undefined : url.href
  } catch {
    return href
  }
}

/** Parentheses and spaces would end a markdown link's destination early (encodeURIComponent keeps parentheses). */
function escapeUrl(url: string): string {
  return url.replace(/[()\s]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`)
}
