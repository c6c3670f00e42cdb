import { describe, expect, it } from "vitest"
import { FileToolError } from "../../../services/files/file.errors"
import { binaryKindOf, sizeText } from "../../../services/files/file.kind"
import { READ_LINE_CHARS, READ_WINDOW_CHARS, readAnswer } from "../../../services/files/file.read"

const bytes = (text: string) => new TextEncoder().encode(text)
const refusal = (fn: () => unknown): string => {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(FileToolError)
    return (error as Error).message
  }
  throw new Error("expected a refusal")
}

describe("forge_read's answer", () => {
  it("numbers a text file's lines, windowed with the offset that reads on", () => {
    const text = Array.from({ length: 5 }, (_, i) => `line ${i + 1}`).join("\n")
    expect(readAnswer("/w/a.txt", bytes(text))).toBe("1: line 1\n2: line 2\n3: line 3\n4: line 4\n5: line 5")
    expect(readAnswer("/w/a.txt", bytes(text), { offset: 2, limit: 2 })).toBe("2: line 2\n3: line 3\n\n(Showing lines 2-3 of 5. Use offset=4 to read more.)")
    expect(() => readAnswer("/w/a.txt", bytes(text), { offset: 9 })).toThrow("offset 9 is past the end of the file: it has 5 lines")
  })

  it("cuts a huge line with its length, never inside a character, and ends a window early at its size bound", () => {
    const minified = `${"x".repeat(READ_LINE_CHARS - 1)}😀${"y".repeat(3_000)}`
    const [first] = readAnswer("/w/app.min.js", bytes(`${minified}\nshort\n`)).split("\n")
    expect(first).toBe(`1: ${"x".repeat(READ_LINE_CHARS - 1)} … (line cut: 5,001 characters in all)`)
    // 100 lines of 1,000 characters: the window stops before 50,000 characters and names the offset that reads on.
    const wide = Array.from({ length: 100 }, (_, i) => String(i % 10).repeat(1_000)).join("\n")
    const answer = readAnswer("/w/wide.txt", bytes(wide))
    const shown = answer.split("\n").filter((l) => /^\d+: /.test(l))
    expect(shown.length).toBe(49)
    expect(answer.length).toBeLessThan(READ_WINDOW_CHARS + 200)
    expect(answer).toMatch(/\(Showing lines 1-49 of 100\. Use offset=50 to read more\.\)$/)
    // One line over the bound is still shown (cut): a window never comes back empty.
    expect(readAnswer("/w/wide.txt", bytes(wide), { offset: 50, limit: 1 })).toMatch(/^50: 9{1000}\n\n\(Showing lines 50-50 of 100/)
  })

  it("keeps CRLF files' lines whole, drops a byte-order mark, and reads an empty file as empty", () => {
    expect(readAnswer("/w/a.txt", bytes("\uFEFFa\r\nb\r\n"))).toBe("1: a\n2: b")
    expect(readAnswer("/w/e.txt", new Uint8Array())).toBe("")
  })

  it("refuses a binary file with its kind and size", () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...new Array(2040).fill(1)])
    expect(refusal(() => readAnswer("/w/logo.png", png))).toBe(
      "forge_read: /w/logo.png is a binary file (PNG image, 2.0 KB); forge_read shows text files only.",
    )
    expect(binaryKindOf(new Uint8Array([0x61, 0x00, 0x62]))).toBe("binary data")
    expect(binaryKindOf(bytes("plain text"))).toBeUndefined()
  })

  it("refuses a file that is not UTF-8 at its first bad byte, never showing it mangled", () => {
    const latin1 = new Uint8Array([...bytes("ok\ncaf"), 0xe9, ...bytes("\n")])
    expect(refusal(() => readAnswer("/w/l.txt", latin1))).toMatch(/^forge_read: \/w\/l\.txt is not UTF-8 text: byte 0xe9 at offset 6 \(line 2\)/)
    // A replacement character written in the file itself is text; the bad byte after it is found.
    const mixed = new Uint8Array([...bytes("\uFFFD ok "), 0xff])
    expect(refusal(() => readAnswer("/w/m.txt", mixed))).toContain("byte 0xff at offset 7 (line 1)")
  })

  it("sizes read as people write them", () => {
    expect([sizeText(12), sizeText(2048), sizeText(5 * 1024 * 1024)]).toEqual(["12 bytes", "2.0 KB", "5.0 MB"])
  })
})
