// The live inspector's HTTP server: the page, the machines' diagrams, one instance's record and document, and a
// server-sent event stream of the feed's changes. It binds 127.0.0.1 only and answers only requests whose Host header
// names a local address, so a web page in the user's browser cannot reach it through DNS rebinding; every response
// forbids loading anything but its own resources.
import { randomBytes } from "node:crypto"
import { open, realpath } from "node:fs/promises"
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http"
import type { AddressInfo } from "node:net"
import path from "node:path"
import type { FeedMessage, InspectorFeed } from "./inspector.feed"
import { receiveInspection } from "./inspector.receiver"

export interface InspectorPages {
  /** The page, with the feed's current view inline so it paints before its event stream opens. */
  page(initial: FeedMessage, nonce: string): string
  /** One machine's diagram as SVG, or undefined for a machine there is none of. */
  diagram(machine: string): Promise<string | undefined>
}

export interface InspectorServerOptions {
  workspace: string
  feed: InspectorFeed
  pages: InspectorPages
  /** 0 (default): a free port. */
  port?: number
  /** Bytes an event stream may have waiting for its page before the page is let go (default 8 MiB). */
  stalledStreamBytes?: number
}

export interface RunningInspector {
  url: string
  /** Where the plugin's `inspect` option sends its actors' snapshots. */
  inspectUrl: string
  port: number
  close(): Promise<void>
}

/** A document is shown up to this size; the rest is cut, saying so. */
const DOCUMENT_LIMIT = 512 * 1024
const HEARTBEAT_MS = 15_000
/** Bytes an event stream may have waiting for its page before the page is let go. */
const STALLED_STREAM = 8 * 1024 * 1024
const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"])

export async function startInspectorServer(options: InspectorServerOptions): Promise<RunningInspector> {
  const streams = new Set<ServerResponse>()
  const server = createServer((request, response) => {
    handle(request, response, options, streams, port()).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, "text/plain", `the inspector failed: ${error instanceof Error ? error.message : String(error)}\n`)
      else response.end()
    })
  })
  const port = () => (server.address() as AddressInfo).port
  await listen(server, options.port ?? 0)
  const receiver = receiveInspection(
    server,
    (request) => upgradeRefusal(request, port()),
    (actor) => options.feed.live(actor),
  )
  const unsubscribe = options.feed.subscribe((message) => {
    for (const stream of streams) {
      // A page that stopped reading (a suspended tab) is let go rather than buffered for: its reconnect starts afresh.
      if (stream.writableLength > (options.stalledStreamBytes ?? STALLED_STREAM)) {
        streams.delete(stream)
        stream.destroy()
      } else stream.write(event(message))
    }
  })
  const heartbeat = setInterval(() => {
    for (const stream of streams) stream.write(": still here\n\n")
  }, HEARTBEAT_MS)
  return {
    url: `http://127.0.0.1:${port()}/`,
    inspectUrl: `ws://127.0.0.1:${port()}${receiver.path}`,
    port: port(),
    async close() {
      clearInterval(heartbeat)
      receiver.close()
      unsubscribe()
      for (const stream of streams) stream.end()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(error.code === "EADDRINUSE" ? new Error(`port ${port} on 127.0.0.1 is taken: give another with --port, or 0 for a free one`) : error),
    )
    server.listen(port, "127.0.0.1", () => resolve())
  })
}

/** Whether the Host header names this server on a loopback name, the only names a page of ours is loaded from. */
export function isLocalHost(host: string | undefined, port: number): boolean {
  if (host === undefined) return false
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host.toLowerCase())
  return match !== null && LOCAL_HOSTS.has(match[1] ?? "") && Number(match[2] ?? 80) === port
}

/**
 * Why an upgrade to the inspection endpoint is refused, or null: a foreign Host (DNS rebinding), or a browser page of
 * another origin (browsers send Origin with every WebSocket; the plugin sends none).
 */
function upgradeRefusal(request: IncomingMessage, port: number): string | null {
  if (!isLocalHost(request.headers.host, port))
    return `refused: the Host header ${JSON.stringify(request.headers.host ?? "")} is not this inspector's local address`
  const origin = request.headers.origin
  if (origin !== undefined && !isLocalHost(origin.replace(/^https?:\/\//, ""), port)) return `refused: a page of ${origin} may not send to this inspector`
  return null
}

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  options: InspectorServerOptions,
  streams: Set<ServerResponse>,
  port: number,
): Promise<void> {
  if (!isLocalHost(request.headers.host, port)) {
    send(
      response,
      403,
      "text/plain",
      `refused: the Host header ${JSON.stringify(request.headers.host ?? "")} is not this inspector's local address (open http://127.0.0.1:${port}/)\n`,
    )
    return
  }
  if (request.method !== "GET" && request.method !== "HEAD") {
    send(response, 405, "text/plain", "the inspector only reads: GET\n")
    return
  }
  const url = new URL(request.url ?? "/", `http://127.0.0.1:${port}`)
  const { feed, pages } = options
  if (url.pathname === "/") {
    const nonce = randomBytes(16).toString("base64")
    send(response, 200, "text/html; charset=utf-8", pages.page(feed.current(), nonce), nonce)
    return
  }
  if (url.pathname === "/events") {
    response.writeHead(200, { ...headers("text/event-stream"), "cache-control": "no-store", connection: "keep-alive" })
    response.write(event(feed.current()))
    streams.add(response)
    request.on("close", () => streams.delete(response))
    return
  }
  const diagram = /^\/diagram\/([\w-]+)\.svg$/.exec(url.pathname)
  if (diagram !== null) {
    const svg = await pages.diagram(diagram[1] ?? "")
    if (svg === undefined) send(response, 404, "text/plain", `no machine ${diagram[1]}\n`)
    else send(response, 200, "image/svg+xml", svg)
    return
  }
  if (url.pathname === "/api/instance" || url.pathname === "/api/document") {
    const machine = url.searchParams.get("machine") ?? ""
    const instance = url.searchParams.get("instance") ?? ""
    const row = feed.row(machine, instance)
    if (row === undefined) {
      send(response, 404, "text/plain", `no ${machine} instance ${JSON.stringify(instance)} in this workspace\n`)
      return
    }
    if (url.pathname === "/api/instance")
      send(response, 200, "application/json", JSON.stringify({ ...row, transitions: await feed.transitionsOf(machine, instance) }))
    else send(response, 200, "text/plain; charset=utf-8", await documentText(options.workspace, row.document))
    return
  }
  send(response, 404, "text/plain", `nothing at ${url.pathname}\n`)
}

/**
 * An instance's document, read only inside the workspace (the database names it, and a damaged database could name
 * any file), and cut at DOCUMENT_LIMIT.
 */
async function documentText(workspace: string, document: string | null): Promise<string> {
  if (document === null) return "(this instance has no document)"
  const root = await realpath(workspace)
  let file: string
  try {
    file = await realpath(path.resolve(root, document))
  } catch {
    return `(the document ${document} is not there any more)`
  }
  if (path.relative(root, file).startsWith("..") || path.isAbsolute(path.relative(root, file)))
    return `(the document ${document} is outside the workspace: not shown)`
  const handle = await open(file, "r")
  try {
    const buffer = Buffer.alloc(DOCUMENT_LIMIT + 1)
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
    const text = buffer.subarray(0, Math.min(bytesRead, DOCUMENT_LIMIT)).toString("utf8")
    return bytesRead > DOCUMENT_LIMIT ? `${text}\n… (cut at ${DOCUMENT_LIMIT / 1024} KB)` : text
  } finally {
    await handle.close()
  }
}

function event(message: FeedMessage): string {
  return `event: ${message.type}\ndata: ${JSON.stringify(message)}\n\n`
}

/** Nothing but this server's own resources, and the page's one inline script by its nonce. */
function headers(type: string, nonce?: string): Record<string, string> {
  const script = nonce === undefined ? "'none'" : `'nonce-${nonce}'`
  return {
    "content-type": type,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "content-security-policy": `default-src 'none'; script-src ${script}; style-src 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  }
}

function send(response: ServerResponse, status: number, type: string, body: string, nonce?: string): void {
  response.writeHead(status, { ...headers(type, nonce), "cache-control": "no-store" })
  response.end(body)
}
