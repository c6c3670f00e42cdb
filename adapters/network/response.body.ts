// A response body read within a byte budget and decoded by its charset: the header's, else (for HTML) a <meta>
// charset in the first 1,024 bytes as browsers look for it, else UTF-8.

export interface BodyBytes {
  bytes: Uint8Array
  /** The body was longer than the budget: `bytes` holds its start, the rest was not read. */
  overflow: boolean
}

/** Reads at most `limit` bytes of the body, cancelling the rest (the connection is not drained). */
export async function readBody(body: ReadableStream<Uint8Array> | null, limit: number): Promise<BodyBytes> {
  if (!body) return { bytes: new Uint8Array(0), overflow: false }
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      if (size + value.length > limit) {
        chunks.push(value.subarray(0, limit - size))
        size = limit
        await reader.cancel().catch(() => undefined)
        return { bytes: join(chunks, size), overflow: true }
      }
      chunks.push(value)
      size += value.length
    }
  } finally {
    reader.releaseLock()
  }
  return { bytes: join(chunks, size), overflow: false }
}

export interface DecodedText {
  text: string
  /** Set when the declared charset is unknown to the decoder and UTF-8 was used instead. */
  note?: string
}

/**
 * The bytes as text in `charset` (a label from a header or a <meta>); a byte order mark, as in browsers (the Encoding
 * standard's decode), outranks any label, and is dropped.
 */
export function decodeBody(bytes: Uint8Array, charset: string | undefined, html: boolean): DecodedText {
  const label = bomCharset(bytes) ?? charset ?? (html ? metaCharset(bytes) : undefined) ?? "utf-8"
  try {
    const decoder = new TextDecoder(label)
    return { text: decoder.encoding === "windows-1252" ? decodeWindows1252(bytes) : decoder.decode(bytes) }
  } catch {
    return { text: new TextDecoder("utf-8").decode(bytes), note: `Note: charset "${label}" is unknown here; read as UTF-8.` }
  }
}

// Node 20's TextDecoder reads windows-1252 (and latin1, iso-8859-1, which the Encoding standard maps to it) as
// ISO-8859-1, so 0x80-0x9F, where such pages keep their curly quotes and dashes, came out as control characters.
const WINDOWS_1252_HIGH = "€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ"

function decodeWindows1252(bytes: Uint8Array): string {
  return new TextDecoder("windows-1252").decode(bytes).replace(/[\u0080-\u009f]/g, (c) => WINDOWS_1252_HIGH[c.charCodeAt(0) - 0x80] as string)
}

/** The charset a byte order mark at the start names: UTF-8, UTF-16LE or UTF-16BE. */
export function bomCharset(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8"
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le"
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be"
  return undefined
}

function metaCharset(bytes: Uint8Array): string | undefined {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 1024))
  return /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1]
}

function join(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const all = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    all.set(chunk, at)
    at += chunk.length
  }
  return all
}
