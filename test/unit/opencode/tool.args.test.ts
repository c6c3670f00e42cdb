import { tool } from "@opencode-ai/plugin"
import { describe, expect, it } from "vitest"
import { forgeTool } from "../../../adapters/opencode/tool.args"

// The one argument parser every Forge tool shares: its error wording for each kind of bad input, and that the
// shape opencode is given is the very object the parse uses.

const z = tool.schema
const args = {
  name: z.string().max(5),
  ratio: z.number().gt(0).lt(1).optional(),
  tags: z.array(z.string()).max(2).optional(),
  code: z
    .string()
    .regex(/^[A-Z]+$/)
    .optional(),
  mode: z.enum(["fast", "safe"]).default("safe"),
}
const probe = forgeTool("probe", { description: "probe", args, execute: async (parsed) => JSON.stringify(parsed) })
const call = (raw: unknown) => probe.execute(raw as never, {} as never)

describe("forgeTool", () => {
  it("gives opencode the same args object it parses with, and fills defaults", async () => {
    expect(probe.args).toBe(args)
    expect(await call({ name: "ab" })).toBe('{"name":"ab","mode":"safe"}')
  })

  it("words bounds, sizes and formats, and shortens long values", async () => {
    await expect(call({ name: "abcdefgh" })).rejects.toThrow(/^probe: argument "name" must be at most 5 characters long \(got 8 characters\)$/)
    await expect(call({ name: "a", ratio: 1 })).rejects.toThrow(/^probe: argument "ratio" must be less than 1 \(got 1\)$/)
    await expect(call({ name: "a", ratio: 0 })).rejects.toThrow(/^probe: argument "ratio" must be greater than 0 \(got 0\)$/)
    await expect(call({ name: "a", tags: ["x", "y", "z"] })).rejects.toThrow(/^probe: argument "tags" must hold at most 2 items \(got 3 items\)$/)
    await expect(call({ name: "a", tags: ["x", 7] })).rejects.toThrow(/^probe: argument "tags\[1\]" must be a string \(got number\)$/)
    await expect(call({ name: "a", code: "abc" })).rejects.toThrow(/^probe: argument "code": /)
    await expect(call({ name: "a", mode: "x".repeat(100) })).rejects.toThrow(/^probe: argument "mode" must be one of fast, safe \(got "x{56}\.\.\.\)$/)
    await expect(call({ name: "a", one: 1, two: 2 })).rejects.toThrow(/^probe: unknown argument "one"; unknown argument "two"$/)
  })
})
