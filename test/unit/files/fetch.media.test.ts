// Which Content-Types forge_fetch reads: HTML (converted), other text as served, the rest refused.
import { expect, it } from "vitest"
import { mediaTypeOf } from "../../../services/files/fetch.media"

it("reads HTML, text, JSON, XML and the +json/+xml families; refuses the rest", () => {
  const kinds = Object.fromEntries(
    [
      "text/html; charset=utf-8",
      "application/xhtml+xml",
      "text/plain",
      "text/markdown",
      "application/json",
      "application/problem+json",
      "application/xml",
      "image/svg+xml",
      "application/javascript",
      "image/png",
      "application/pdf",
      "application/octet-stream",
      "",
    ].map((header) => [header, mediaTypeOf(header).kind]),
  )
  expect(kinds).toEqual({
    "text/html; charset=utf-8": "html",
    "application/xhtml+xml": "html",
    "text/plain": "text",
    "text/markdown": "text",
    "application/json": "text",
    "application/problem+json": "text",
    "application/xml": "text",
    "image/svg+xml": "text",
    "application/javascript": "text",
    "image/png": "refused",
    "application/pdf": "refused",
    "application/octet-stream": "refused",
    "": "refused",
  })
})

it("takes the type case-insensitively and the charset parameter, quoted or not", () => {
  expect(mediaTypeOf('Text/HTML; Charset="ISO-8859-1"')).toEqual({ type: "text/html", charset: "ISO-8859-1", kind: "html" })
  expect(mediaTypeOf("text/plain;charset=windows-1252")).toMatchObject({ charset: "windows-1252" })
  expect(mediaTypeOf(null)).toEqual({ type: "", charset: undefined, kind: "refused" })
})
