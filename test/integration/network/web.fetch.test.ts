import http from "node:http"
import type { AddressInfo } from "node:net"
import zlib from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createWebFetch } from "../../../adapters/network/web.fetch"
import { fetchAnswer } from "../../../services/files/fetch.page"
import { longestStall } from "../../hostile/hostile.harness"

// forge_fetch against pages served from 127.0.0.1: HTML to markdown, raw HTML and other text as served, paging,
// refusals (types, sizes, schemes, HTTP errors, the network, a server too slow) in plain words.

const PAGE = `<!doctype html><html><head><title>The  Page</title><style>body { color: red }</style>
<script>alert("no")</script></head><body><h1>Heading</h1><p>Some <b>bold</b> text and <a href="/other?x=(1)">a link</a>.</p>
<img src="data:image/png;base64,${"A".repeat(2000)}" alt="inline chart"><img src="pics/cat.png" alt="cat">
<ul><li>one</li><li>two</li></ul><noscript>Enable JavaScript</noscript><pre><code>let x = 1</code></pre></body></html>`

/** 200 KB of nested <div>s: parsed and converted recursively, this froze the host for seconds and overflowed its stack. */
const NESTED = `<html><body>${"<div>".repeat(18_000)}deep${"</div>".repeat(18_000)}</body></html>`

const LONG = Array.from({ length: 5000 }, (_, i) => `line ${i}`).join("\n")

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void
const routes: Record<string, Handler> = {
  "/page.html": (_q, r) => r.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE),
  "/data.json": (_q, r) => r.writeHead(200, { "content-type": "application/json" }).end('{"a": [1, 2]}'),
  "/long.txt": (_q, r) => r.writeHead(200, { "content-type": "text/plain" }).end(LONG),
  "/latin1.txt": (_q, r) => r.writeHead(200, { "content-type": "text/plain; charset=iso-8859-1" }).end(Buffer.from([0x63, 0x61, 0x66, 0xe9])),
  "/meta.html": (_q, r) =>
    r
      .writeHead(200, { "content-type": "text/html" })
      .end(Buffer.from('<html><head><meta charset="windows-1252"></head><body><p>\x93quoted\x94</p></body></html>', "latin1")),
  "/odd-charset.txt": (_q, r) => r.writeHead(200, { "content-type": "text/plain; charset=x-klingon" }).end("qapla'"),
  "/untyped": (_q, r) => r.end("plain words"),
  "/untyped.bin": (_q, r) => r.end(Buffer.from([1, 0, 2, 3])),
  "/image.png": (_q, r) => r.writeHead(200, { "content-type": "image/png", "content-length": "2048" }).end(Buffer.alloc(2048)),
  "/missing": (_q, r) => r.writeHead(404, { "content-type": "text/html" }).end(`<html><body><h1>Not Found</h1><p>No page at /missing.</p></body></html>`),
  "/broken": (_q, r) => r.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: "x".repeat(1000) })),
  "/gone.png": (_q, r) => r.writeHead(410, { "content-type": "image/png" }).end(Buffer.alloc(10)),
  "/redirect": (_q, r) => r.writeHead(302, { location: "/hop" }).end(),
  "/hop": (_q, r) => r.writeHead(301, { location: "/page.html" }).end(),
  "/loop": (_q, r) => r.writeHead(302, { location: "/loop" }).end(),
  "/to-ftp": (_q, r) => r.writeHead(302, { location: "ftp://example.com/file" }).end(),
  "/slow": (_q, r) => {
    r.writeHead(200, { "content-type": "text/plain" })
    r.write("the start")
  },
  "/to-invalid": (_q, r) => r.writeHead(301, { location: "http://[::1" }).end(),
  "/to-file": (_q, r) => r.writeHead(302, { location: "file:///etc/passwd" }).end(),
  "/utf16-bom.txt": (_q, r) => r.writeHead(200, { "content-type": "text/plain" }).end(Buffer.from("\ufeffhi there", "utf16le")),
  "/utf16-untyped": (_q, r) => r.end(Buffer.from("\ufeffhi there", "utf16le")),
  "/bom-over-header.txt": (_q, r) => r.writeHead(200, { "content-type": "text/plain; charset=iso-8859-1" }).end("\ufeffcafé"),
  "/gzip.txt": (_q, r) => r.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" }).end(zlib.gzipSync("zipped text")),
  "/gzip-bomb.txt": (_q, r) => r.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" }).end(zlib.gzipSync(Buffer.alloc(5000, 97))),
  "/doc.pdf": (_q, r) => r.writeHead(200, { "content-type": "application/pdf" }).end(Buffer.from("%PDF-1.4")),
  "/big-page.html": (_q, r) => r.writeHead(200, { "content-type": "text/html" }).end(`<html><body>${"<p>para <b>x</b></p>".repeat(100)}</body></html>`),
  "/nested.html": (_q, r) => r.writeHead(200, { "content-type": "text/html" }).end(NESTED),
  "/nested-404": (_q, r) => r.writeHead(404, { "content-type": "text/html" }).end(`<html><body>${"<div>".repeat(3000)}lost</body></html>`),
  "/big-declared": (_q, r) => r.writeHead(200, { "content-type": "text/plain", "content-length": "5000" }).end("y".repeat(5000)),
  "/big-streamed": (_q, r) => {
    r.writeHead(200, { "content-type": "text/plain" })
    for (let i = 0; i < 10; i++) r.write("z".repeat(500))
    r.end()
  },
}

let server: http.Server
let base: string
beforeAll(async () => {
  server = http.createServer((req, res) => (routes[req.url ?? ""] ?? ((_q, r) => r.writeHead(404).end()))(req, res))
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

const web = createWebFetch()

describe("pages", () => {
  it("converts HTML to markdown: title apart, scripts and styles gone, links absolute, inline images their alt text", async () => {
    const page = await web.fetch(`${base}/page.html`, { raw: false })
    expect(page).toMatchObject({ form: "markdown", mediaType: "text/html", title: "The Page", finalUrl: `${base}/page.html` })
    expect(page.content).toBe(
      [
        "# Heading",
        `Some **bold** text and [a link](${base}/other?x=%281%29).`,
        `[image: inline chart]![cat](${base}/pics/cat.png)`,
        "-   one\n-   two",
        "```\nlet x = 1\n```",
      ].join("\n\n"),
    )
  })

  it("gives HTML as served when raw", async () => {
    const page = await web.fetch(`${base}/page.html`, { raw: true })
    expect(page).toMatchObject({ form: "as served", content: PAGE })
    expect(page.title).toBeUndefined()
  })

  it("gives JSON and other text as served", async () => {
    expect(await web.fetch(`${base}/data.json`, { raw: false })).toMatchObject({ form: "as served", mediaType: "application/json", content: '{"a": [1, 2]}' })
  })

  it("pages a long text: two calls join to the whole, the first naming the start_index of the second", async () => {
    const first = fetchAnswer(await web.fetch(`${base}/long.txt`, { raw: false }), { startIndex: 0, maxLength: 30_000 })
    const next = /call forge_fetch again with start_index=(\d+) for the rest \(([\d,]+) characters in all\)$/.exec(first)
    expect(next?.[2]).toBe(LONG.length.toLocaleString("en-US"))
    const second = fetchAnswer(await web.fetch(`${base}/long.txt`, { raw: false }), { startIndex: Number(next?.[1]), maxLength: 30_000 })
    expect(second).not.toContain("truncated")
    const body = (answer: string) => answer.slice(answer.indexOf("\n\n") + 2).replace(/\n\n… content truncated: .*$/, "")
    expect(body(first) + body(second)).toBe(LONG)
  })

  it("follows redirects and says where the content came from", async () => {
    const page = await web.fetch(`${base}/redirect`, { raw: false })
    expect(page.finalUrl).toBe(`${base}/page.html`)
    expect(fetchAnswer(page, { startIndex: 0, maxLength: 100 })).toMatch(new RegExp(`^URL: ${base}/page.html \\(redirected from ${base}/redirect\\)\n`))
  })
})

describe("encodings", () => {
  it("undoes a gzip content encoding, and caps the decoded bytes, not the compressed ones", async () => {
    expect(await web.fetch(`${base}/gzip.txt`, { raw: false })).toMatchObject({ content: "zipped text" })
    await expect(createWebFetch({ maxBytes: 1000 }).fetch(`${base}/gzip-bomb.txt`, { raw: false })).rejects.toThrow(
      `forge_fetch: ${base}/gzip-bomb.txt is too large (more than 1000 bytes)`,
    )
  })

  it("gives a large HTML page as served, with a note, rather than hold the host's thread converting it", async () => {
    const page = await createWebFetch({ maxConvertBytes: 1000 }).fetch(`${base}/big-page.html`, { raw: false })
    expect(page).toMatchObject({ form: "as served", mediaType: "text/html" })
    expect(page.content.startsWith("<html><body><p>para <b>x</b></p>")).toBe(true)
    expect(page.notes).toEqual(["Note: the page is 2.0 KB of HTML, more than the 1000 bytes converted to markdown; it is given as served."])
    expect(await web.fetch(`${base}/big-page.html`, { raw: false })).toMatchObject({ form: "markdown" })
  })
})

describe("hostile pages", () => {
  it("refuses a page nested deeper than the conversion's limit, naming the limit, without holding the host's thread", async () => {
    let message = ""
    const { stallMs: stall } = await longestStall(() => web.fetch(`${base}/nested.html`, { raw: false }).catch((e: Error) => (message = e.message)))
    expect(message).toBe(
      `forge_fetch: ${base}/nested.html nests its HTML elements more than 1,000 deep, over the limit for converting a page to markdown; nothing was converted. Call forge_fetch with raw: true for the HTML as served.`,
    )
    expect(stall).toBeLessThan(2000)
    expect(await web.fetch(`${base}/nested.html`, { raw: true })).toMatchObject({ form: "as served", content: NESTED })
  })

  it("reports an HTTP error whose page is nested too deep by its status alone", async () => {
    await expect(web.fetch(`${base}/nested-404`, { raw: false })).rejects.toThrow(
      `forge_fetch: ${base}/nested-404 answered HTTP 404 Not Found (its page could not be read: it nests its HTML elements more than 1,000 deep).`,
    )
  })

  it("refuses a conversion that runs past its time limit, naming the limit", async () => {
    await expect(createWebFetch({ convertTimeoutMs: 1 }).fetch(`${base}/page.html`, { raw: false })).rejects.toThrow(
      `forge_fetch: converting ${base}/page.html to markdown took longer than the 0.001 s limit; nothing was converted. Call forge_fetch with raw: true for the HTML as served.`,
    )
  })
})

describe("charsets", () => {
  it("reads by a byte order mark before any label, as browsers do, with or without a Content-Type", async () => {
    expect((await web.fetch(`${base}/utf16-bom.txt`, { raw: false })).content).toBe("hi there")
    expect((await web.fetch(`${base}/utf16-untyped`, { raw: false })).content).toBe("hi there")
    expect((await web.fetch(`${base}/bom-over-header.txt`, { raw: false })).content).toBe("café")
  })

  it("decodes by the header's charset, else an HTML page's <meta> charset", async () => {
    expect((await web.fetch(`${base}/latin1.txt`, { raw: false })).content).toBe("café")
    // windows-1252, curly quotes included (0x93 and 0x94, which Node's own decoder reads as control characters).
    expect((await web.fetch(`${base}/meta.html`, { raw: false })).content).toBe("\u201cquoted\u201d")
  })

  it("reads an unknown charset as UTF-8 and says so", async () => {
    expect(await web.fetch(`${base}/odd-charset.txt`, { raw: false })).toMatchObject({
      content: "qapla'",
      notes: ['Note: charset "x-klingon" is unknown here; read as UTF-8.'],
    })
  })

  it("reads a response without a Content-Type as text unless it is binary", async () => {
    expect(await web.fetch(`${base}/untyped`, { raw: false })).toMatchObject({ mediaType: "", content: "plain words" })
    await expect(web.fetch(`${base}/untyped.bin`, { raw: false })).rejects.toThrow(
      `forge_fetch: ${base}/untyped.bin sent binary content (4 bytes) without a Content-Type; forge_fetch reads text only.`,
    )
  })
})

describe("refusals", () => {
  it("refuses a non-text response, naming its type and size", async () => {
    await expect(web.fetch(`${base}/image.png`, { raw: false })).rejects.toThrow(
      `forge_fetch: ${base}/image.png is image/png (2.0 KB), not text; forge_fetch reads HTML and text (text/*, JSON, XML) only.`,
    )
  })

  it("reports an HTTP error with its status and the start of what the server said", async () => {
    await expect(web.fetch(`${base}/missing`, { raw: false })).rejects.toThrow(
      `forge_fetch: ${base}/missing answered HTTP 404 Not Found: # Not Found No page at /missing.`,
    )
    const broken = await web.fetch(`${base}/broken`, { raw: false }).catch((e: Error) => e.message)
    expect(broken).toMatch(new RegExp(`^forge_fetch: ${base}/broken answered HTTP 500 Internal Server Error: \\{"error":"x{290}…$`))
    await expect(web.fetch(`${base}/gone.png`, { raw: false })).rejects.toThrow(
      `forge_fetch: ${base}/gone.png answered HTTP 410 Gone (no text in the response).`,
    )
  })

  it("refuses other schemes, naming the scheme, also at the end of a redirect; and what is no URL", async () => {
    await expect(web.fetch("ftp://example.com/x", { raw: false })).rejects.toThrow(
      'forge_fetch: the scheme "ftp" of ftp://example.com/x is not supported; only http and https URLs are fetched.',
    )
    await expect(web.fetch("file:///etc/passwd", { raw: false })).rejects.toThrow('the scheme "file" of file:///etc/passwd is not supported')
    await expect(web.fetch(`${base}/to-ftp`, { raw: false })).rejects.toThrow(
      `forge_fetch: the scheme "ftp" of ftp://example.com/file (where ${base}/to-ftp redirected) is not supported`,
    )
    await expect(web.fetch("example.com/page", { raw: false })).rejects.toThrow(
      'forge_fetch: "example.com/page" is not a valid URL; give it whole, e.g. "https://example.com/page".',
    )
  })

  it("refuses a redirect to file:// and to what is no URL, naming both ends", async () => {
    await expect(web.fetch(`${base}/to-file`, { raw: false })).rejects.toThrow(
      `forge_fetch: the scheme "file" of file:///etc/passwd (where ${base}/to-file redirected) is not supported`,
    )
    await expect(web.fetch(`${base}/to-invalid`, { raw: false })).rejects.toThrow(
      `forge_fetch: ${base}/to-invalid redirected to "http://[::1", which is no valid URL.`,
    )
  })

  it("refuses a PDF, naming its type", async () => {
    await expect(web.fetch(`${base}/doc.pdf`, { raw: false })).rejects.toThrow(`forge_fetch: ${base}/doc.pdf is application/pdf (`)
  })

  it("follows a bounded number of redirects", async () => {
    await expect(createWebFetch({ maxRedirects: 3 }).fetch(`${base}/loop`, { raw: false })).rejects.toThrow(
      `forge_fetch: ${base}/loop redirected more than 3 times (the last to ${base}/loop).`,
    )
  })

  it("refuses a body over the size limit, declared or streamed", async () => {
    const small = createWebFetch({ maxBytes: 1000 })
    await expect(small.fetch(`${base}/big-declared`, { raw: false })).rejects.toThrow(
      `forge_fetch: ${base}/big-declared is too large (4.9 KB); forge_fetch reads at most 1000 bytes.`,
    )
    await expect(small.fetch(`${base}/big-streamed`, { raw: false })).rejects.toThrow(
      `forge_fetch: ${base}/big-streamed is too large (more than 1000 bytes); forge_fetch reads at most 1000 bytes.`,
    )
  })

  it("gives up on a server that does not finish in time, naming the URL", async () => {
    const started = Date.now()
    await expect(createWebFetch({ timeoutMs: 300 }).fetch(`${base}/slow`, { raw: false })).rejects.toThrow(
      `forge_fetch: ${base}/slow did not finish within 0.3 s (timed out).`,
    )
    expect(Date.now() - started).toBeLessThan(5000)
  })

  it("reports a refused connection plainly, naming the URL", async () => {
    const closed = http.createServer()
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve))
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/`
    await new Promise((resolve) => closed.close(resolve))
    await expect(web.fetch(url, { raw: false })).rejects.toThrow(`forge_fetch: could not fetch ${url}: connection refused (ECONNREFUSED)`)
  })

  it("reports a host that does not resolve plainly", async () => {
    await expect(web.fetch("http://no-such-host.invalid/", { raw: false })).rejects.toThrow(
      /^forge_fetch: could not fetch http:\/\/no-such-host\.invalid\/: (host not found \(DNS lookup failed\) \(ENOTFOUND\)|DNS lookup failed for now .*\(EAI_AGAIN\))$/,
    )
  })
})
