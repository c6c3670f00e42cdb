import { DocumentInputError } from "../documents/document.errors"
import { readWindow } from "../documents/document.window"
import { FileToolError } from "./file.errors"
import { binaryKindOf, sizeText } from "./file.kind"

// forge_read's answer: a text file's lines numbered and windowed (a notice names the offset that reads on; a long
// line is cut, and a window stops early at a size bound); a binary
// file refused with its kind and size; a file that is not UTF-8 refused at its first bad byte, never shown mangled.

export interface ReadRequest {
  offset?: number
  limit?: number
}

const utf8 = new TextDecoder("utf-8", { fatal: true })

/** A line is cut past this (a minified file is one huge line), as opencode's own read does. */
export const READ_LINE_CHARS = 2_000
/** A window ends early past this many characters, so one read never floods the model's context. */
export const READ_WINDOW_CHARS = 50_000

export function readAnswer(path: string, bytes: Uint8Array, request: ReadRequest = {}): string {
  const kind = binaryKindOf(bytes)
  if (kind !== undefined)
    throw new FileToolError(`forge_read: ${path} is a binary file (${kind}, ${sizeText(bytes.length)}); forge_read shows text files only.`)
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    const at = firstInvalidUtf8(bytes)
    const line = countLines(bytes.subarray(0, at)) + 1
    throw new FileToolError(
      `forge_read: ${path} is not UTF-8 text: byte 0x${(bytes[at] ?? 0).toString(16).padStart(2, "0")} at offset ${at} (line ${line}) is not valid UTF-8, so it is not shown (it would be mangled). Read it with a tool that knows its encoding, e.g. forge_shell with iconv.`,
    )
  }
  try {
    // A byte-order mark is no part of the first line.
    return readWindow(text.replace(/^\uFEFF/, ""), { ...request, what: "file", maxLineChars: READ_LINE_CHARS, maxChars: READ_WINDOW_CHARS })
  } catch (error) {
    // The window's refusal ("offset 9 is past the end") names no file: this one does.
    if (error instanceof DocumentInputError) throw new FileToolError(`forge_read: ${path}: ${error.message}.`)
    throw error
  }
}

/**
 * Offset of the first byte UTF-8 decoding replaces: the loose decoder marks it U+FFFD, and the valid text before it
 * re-encodes to exactly its bytes (a U+FFFD written in the file itself is passed over).
 */
function firstInvalidUtf8(bytes: Uint8Array): number {
  const loose = new TextDecoder("utf-8").decode(bytes)
  const encoder = new TextEncoder()
  for (let from = 0; ; ) {
    const index = loose.indexOf("\uFFFD", from)
    if (index < 0) return bytes.length
    const offset = encoder.encode(loose.slice(0, index)).length
    if (!(bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd)) return offset
    from = index + 1
  }
}

function countLines(bytes: Uint8Array): number {
  let n = 0
  for (const b of bytes) if (b === 0x0a) n++
  return n
}
