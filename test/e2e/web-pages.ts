// The scenario's `web` pages, served on 127.0.0.1 for tools that fetch (forge_fetch): each path answers with its
// status, content type, headers and body as written, and every request is counted so a scenario can see it arrived.
import http from "node:http"
import type { AddressInfo } from "node:net"
import type { WebPage } from "./scenario.schema"

export interface WebPages {
  /** `http://127.0.0.1:<port>`: what `{{web}}` stands for. */
  url: string
  /** Request paths in arrival order. */
  requests: string[]
  close(): Promise<void>
}

export async function startWebPages(pages: Readonly<Record<string, WebPage>>): Promise<WebPages> {
  const requests: string[] = []
  const server = http.createServer((req, res) => {
    const target = (req.url ?? "/").split("?", 1)[0] ?? "/"
    requests.push(target)
    const page = pages[target]
    if (page === undefined) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end(`no page ${target} in the scenario's web`)
      return
    }
    const body = Buffer.from(page.body, "utf8")
    res.writeHead(page.status, { "content-type": page.contentType, "content-length": body.length, ...page.headers }).end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
