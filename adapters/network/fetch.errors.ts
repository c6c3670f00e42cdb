// forge_fetch's failures in plain words. A refusal (scheme, type, size, HTTP status) is already worded; a network
// failure arrives as Node's "fetch failed" with the system's code somewhere in its cause (or, under Bun, with a code
// of Bun's own on the error), and is worded here.

/** A failure whose message is the model's answer as it stands. */
export class FetchRefusal extends Error {}

const NETWORK_WORDS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset by the server",
  ENOTFOUND: "host not found (DNS lookup failed)",
  EAI_AGAIN: "DNS lookup failed for now (offline, or the name server did not answer)",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ETIMEDOUT: "connection timed out",
  UND_ERR_CONNECT_TIMEOUT: "connection timed out",
  UND_ERR_SOCKET: "the connection closed unexpectedly",
  // Bun's fetch (opencode's runtime) names its failures in words of its own, on the error itself.
  ConnectionRefused: "connection refused",
  ConnectionClosed: "the connection closed unexpectedly",
  FailedToOpenSocket: "could not open a connection",
}

/** A refusal naming the URL and what went wrong on the way there. */
export function networkFailure(url: string, error: unknown): FetchRefusal {
  const cause = causeOf(error)
  const code = cause?.code
  const words =
    (code && NETWORK_WORDS[code]) ??
    (code && /CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code) ? `TLS certificate problem: ${cause?.message}` : undefined) ??
    cause?.message ??
    (error instanceof Error ? error.message : String(error))
  return new FetchRefusal(`forge_fetch: could not fetch ${url}: ${words}${code ? ` (${code})` : ""}`)
}

interface Cause {
  code?: string
  message: string
}

/** The innermost cause with a code: undici nests it, and several addresses (IPv4 and IPv6) make an AggregateError. */
function causeOf(error: unknown): Cause | undefined {
  let current: unknown = error
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === "string") return { code, message: current.message }
    const inner = current instanceof AggregateError ? current.errors[0] : current.cause
    if (!(inner instanceof Error)) return { message: current.message }
    current = inner
  }
  return undefined
}
