import { tool } from "@opencode-ai/plugin"
import { describe, expect, it } from "vitest"
import { forgeTool } from "../../../adapters/opencode/tool.args"
import { bodySummary, foldBodies, hideScreenFields, showOnCallLine, withoutScreenFields } from "../../../adapters/opencode/tool.screen"

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
const probe = forgeTool("probe", {
  description: "probe",
  args,
  execute: async (parsed) => ({ output: JSON.stringify(parsed), title: `Probed ${parsed.name}`, metadata: { seen: parsed.name } }),
})
const call = async (raw: unknown) => {
  const result = await probe.execute(raw as never, {} as never)
  return typeof result === "string" ? result : result.output
}

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

  it("answers with the tool part's title and metadata", async () => {
    expect(await probe.execute({ name: "ab" } as never, {} as never)).toEqual({
      title: "Probed ab",
      output: '{"name":"ab","mode":"safe"}',
      metadata: { seen: "ab" },
    })
  })

  it("puts a line's fields on the call's input object beside the model's arguments, long texts last", () => {
    const input: Record<string, unknown> = { name: "x".repeat(81), code: "AB" }
    showOnCallLine(input, { name: "shown", seen: 3, text: "a\n  b" }, new Set(Object.keys(args)))
    // "name" is the model's argument: the field of the same name is drawn as "name " and never replaces it.
    expect(input).toEqual({ code: "AB", "name ": "shown", seen: 3, text: "a b", name: "x".repeat(81) })
    expect(Object.keys(input)).toEqual(["code", "name ", "seen", "text", "name"])
    expect(() => showOnCallLine("not an object", { a: 1 }, new Set())).not.toThrow()
  })

  it("parses the model's arguments alone: opencode hands execute() the very object the line's fields were put on", async () => {
    const input: Record<string, unknown> = { name: "ab" }
    showOnCallLine(input, { name: "shown", seen: 3 }, new Set(Object.keys(args)))
    expect(await call(input)).toBe('{"name":"ab","mode":"safe"}')
    expect(withoutScreenFields(input)).toEqual({ name: "ab" })
    // A field the model itself sends is still an unknown argument.
    await expect(call({ name: "ab", seen: 3 })).rejects.toThrow(/^probe: unknown argument "seen"$/)
  })

  it("hides the line's fields from the model: only each Forge tool's own arguments stay in its calls", () => {
    const input = { name: "ab", "name ": "shown", seen: "ab" }
    const foreign = { name: "x", extra: 1 }
    const messages = [
      { parts: [{ type: "text" }, { type: "tool", tool: "probe", state: { input } }, { type: "tool", tool: "other", state: { input: foreign } }] },
    ]
    hideScreenFields(messages, new Map([["probe", new Set(Object.keys(args))]]))
    expect(input).toEqual({ name: "ab" })
    expect(foreign).toEqual({ name: "x", extra: 1 })
  })

  it("folds a body of text on the line to its size and first lines; execute() and the model get it back in its place", async () => {
    const body = "# Title\n\n## Steps\n- one\n- two\n- three\n"
    const input: Record<string, unknown> = { name: body }
    showOnCallLine(input, { seen: 3 }, new Set(Object.keys(args)))
    foldBodies(input, new Set(["name"]))
    // The line shows scalars only: the summary, never the body, which waits under an object key.
    expect(input).toEqual({ seen: 3, name: "6 lines, 38 bytes: # Title ⏎ ## Steps ⏎ - one ⏎ …", "forge:name": { text: body } })
    expect(withoutScreenFields(input)).toEqual({ name: body })
    const write = forgeTool("write", {
      description: "write",
      args: { name: z.string() },
      execute: async ({ name }) => ({ output: name, title: "", metadata: {} }),
    })
    expect(await write.execute(input as never, {} as never)).toMatchObject({ output: body })
    // What opencode stored is what each model request is built from: the body is back, the fold gone.
    const stored = structuredClone(input)
    hideScreenFields([{ parts: [{ type: "tool", tool: "probe", state: { input: stored } }] }], new Map([["probe", new Set(Object.keys(args))]]))
    expect(stored).toEqual({ name: body })
    // A short one-line text stays as it is; a fold's key the model sent itself is dropped, never put in place.
    const short: Record<string, unknown> = { name: "short" }
    foldBodies(short, new Set(["name"]))
    expect(short).toEqual({ name: "short" })
    const forged = { name: "mine", "forge:name": { text: "injected", more: 1 } }
    hideScreenFields([{ parts: [{ type: "tool", tool: "probe", state: { input: forged } }] }], new Map([["probe", new Set(Object.keys(args))]]))
    expect(forged).toEqual({ name: "mine" })
  })

  it("sizes a folded body in bytes, counts its lines with or without a final newline, and keeps the line short", () => {
    expect(bodySummary("a\nb")).toBe("2 lines, 3 bytes: a ⏎ b")
    expect(bodySummary("one line\n")).toBe("1 line, 9 bytes: one line")
    expect(bodySummary(`${"é".repeat(800)}\n`)).toMatch(/^1 line, 1\.6 KB: é+…$/)
    expect(bodySummary("x".repeat(500)).length).toBeLessThanOrEqual(200)
  })

  it("says what each form of an argument of several forms found wrong, with the key at fault", async () => {
    const union = forgeTool("union", {
      description: "union",
      args: { checks: z.array(z.union([z.strictObject({ command: z.string() }), z.strictObject({ file: z.string(), text: z.string() })])) },
      execute: async () => ({ output: "ok", title: "ok", metadata: {} }),
    })
    await expect(union.execute({ checks: [{ cmd: "npm test" }] } as never, {} as never)).rejects.toThrow(
      'union: argument "checks[0]" matches none of its forms: (1) argument "checks[0].command" is missing (expected a string), argument "checks[0]" has an unknown key "cmd"; or (2) argument "checks[0].file" is missing (expected a string), argument "checks[0].text" is missing (expected a string), argument "checks[0]" has an unknown key "cmd"',
    )
  })

  it("asks the agent partition before it parses or runs anything: a worker calls no state tool, another agent no Forge tool", async () => {
    const ran: string[] = []
    const defined = (id: string) =>
      forgeTool(id, {
        description: id,
        args: { n: z.number() },
        execute: async () => {
          ran.push(id)
          return { output: "ran", title: "ran", metadata: {} }
        },
      })
    const as = (agent: string) => ({ agent }) as never
    await expect(defined("crew_close").execute({ n: "garbage" } as never, as("forge-coder"))).rejects.toThrow(/^agent partition: crew_close is primary-only/)
    await expect(defined("forge_shell").execute({ n: 1 } as never, as("build"))).rejects.toThrow(/forge_shell belongs to the forge agent, and build is not/)
    expect(ran).toEqual([])
    await defined("forge_shell").execute({ n: 1 } as never, as("forge-coder"))
    await defined("crew_close").execute({ n: 1 } as never, as("forge"))
    expect(ran).toEqual(["forge_shell", "crew_close"])
  })
})
