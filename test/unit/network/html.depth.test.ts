import { describe, expect, it } from "vitest"
import { nestingDepth } from "../../../adapters/network/html.depth"

// The linear nesting scan that stands before forge_fetch's HTML parser: it must count what the parser will nest,
// closely enough that a legitimate page passes and a page built to be deep is stopped before it is parsed.

describe("nestingDepth", () => {
  it.each([
    ["<html><body><div><div>x</div></div></body></html>", 2],
    ["<ul><li>a<li>b<li><ul><li>c</ul></ul>", 2],
    ["<p>a<p>b<p>c<br><img src=x><hr>", 0],
    ["<script>'<div><div>'</script><div></div>", 1],
    ["<SCRIPT>x</Script><div a='>' b=\"<div>\"><span></span></div>", 2],
    ["<!-- <div><div> --><div/><div/>", 2],
    ["<svg><g/><g/><path/></svg>", 1],
    ["<div></span></span><div></div></div>", 2],
    ["<div><section><div>unclosed", 3],
  ])("%s nests %i deep", (html, depth) => {
    expect(nestingDepth(html, 1000)).toBe(depth)
  })

  it("stops as soon as the nesting passes the limit", () => {
    expect(nestingDepth("<div>".repeat(50_000), 1000)).toBe(1001)
    expect(nestingDepth(`${"<div>".repeat(1000)}${"</div>".repeat(1000)}`, 1000)).toBe(1000)
  })
})
