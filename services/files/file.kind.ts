// What a file's bytes are, for a read tool that shows text only: a few well-known signatures name a binary file's
// kind in the refusal; anything else with a NUL byte near its start is "binary data".

const SIGNATURES: readonly { kind: string; bytes: readonly number[]; at?: number }[] = [
  { kind: "PNG image", bytes: [0x89, 0x50, 0x4e, 0x47] },
  { kind: "JPEG image", bytes: [0xff, 0xd8, 0xff] },
  { kind: "GIF image", bytes: [0x47, 0x49, 0x46, 0x38] },
  { kind: "WebP image", bytes: [0x57, 0x45, 0x42, 0x50], at: 8 },
  { kind: "PDF document", bytes: [0x25, 0x50, 0x44, 0x46] },
  { kind: "ZIP archive", bytes: [0x50, 0x4b, 0x03, 0x04] },
  { kind: "gzip archive", bytes: [0x1f, 0x8b] },
  { kind: "ELF executable", bytes: [0x7f, 0x45, 0x4c, 0x46] },
  { kind: "WebAssembly module", bytes: [0x00, 0x61, 0x73, 0x6d] },
  { kind: "SQLite database", bytes: [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65, 0x20, 0x66] },
]

/** How far into a file a NUL byte marks it as binary (as git and most tools look). */
const SNIFF_BYTES = 8192

/** The binary kind of `bytes` ("PNG image", "binary data"), or undefined for text. */
export function binaryKindOf(bytes: Uint8Array): string | undefined {
  const known = SIGNATURES.find(({ bytes: sig, at = 0 }) => sig.every((b, i) => bytes[at + i] === b))
  if (known !== undefined) return known.kind
  return bytes.subarray(0, SNIFF_BYTES).includes(0) ? "binary data" : undefined
}

/** "12.3 KB" style sizes for messages. */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}

/**
 * The largest file the forge file tools read, change or journal: they hold it whole (and the journal keeps each
 * version), so past this a file is refused by name and size instead of stalling opencode.
 */
export const MAX_FILE_BYTES = 50 * 1024 * 1024
