import * as z from "zod"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type HostileHost, openHostileHost } from "./hostile.harness"

// Every text argument of every Forge tool has a length limit, and every list a count limit, in the schema the model
// sees (JSON Schema maxLength / maxItems) and the tool parses with before it runs: found by walking each tool's
// schema, so a tool added without limits fails here by name.

interface Unbounded {
  tool: string
  arg: string
  kind: "string" | "array"
}

type JsonSchema = {
  type?: string | string[]
  maxLength?: number
  maxItems?: number
  items?: JsonSchema
  properties?: Record<string, JsonSchema>
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
}

function unbounded(tool: string, schema: JsonSchema, at: string, out: Unbounded[]): void {
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type]
  if (types.includes("string") && schema.maxLength === undefined && !("enum" in schema) && !("const" in schema)) out.push({ tool, arg: at, kind: "string" })
  if (types.includes("array") && schema.maxItems === undefined) out.push({ tool, arg: at, kind: "array" })
  if (schema.items !== undefined) unbounded(tool, schema.items, `${at}[]`, out)
  for (const [key, inner] of Object.entries(schema.properties ?? {})) unbounded(tool, inner, at === "" ? key : `${at}.${key}`, out)
  for (const inner of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) unbounded(tool, inner, at, out)
}

/**
 * Paths are bounded where they are resolved: one check of every path (NUL bytes, length, encoding), in
 * adapters/workspace/tool.paths.ts, that answers in Forge's words; tools.hostile.test.ts gives each a huge path.
 */
const CHECKED_AS_PATHS = new Set(["forge_read path", "forge_write path", "forge_patch path", "forge_remove path", "forge_undo path", "forge_search path"])

describe("argument limits", () => {
  let host: HostileHost
  beforeAll(async () => {
    host = await openHostileHost()
  })
  afterAll(async () => host.close())

  it("every text and list argument of every Forge tool has a limit", () => {
    const found: Unbounded[] = []
    for (const [tool, definition] of Object.entries(host.tools)) {
      const schema = z.toJSONSchema(z.object(definition.args), { io: "input", unrepresentable: "any" }) as JsonSchema
      unbounded(tool, schema, "", found)
    }
    expect(found.filter((u) => !CHECKED_AS_PATHS.has(`${u.tool} ${u.arg}`)).map((u) => `${u.tool} ${u.arg} (${u.kind})`)).toEqual([])
  })

  it("a 10 MB objective is refused by goal_write and crew_begin, naming the argument, its length and the limit, before any document is written", async () => {
    const objective = "x".repeat(10 * 1024 * 1024)
    await expect(host.call("goal_write", { objective })).rejects.toThrow(
      'goal_write: argument "objective" must be at most 20000 characters long (got 10485760 characters)',
    )
    await expect(host.call("crew_begin", { objective, subtasks: [{ title: "one" }] })).rejects.toThrow(
      'crew_begin: argument "objective" must be at most 20000 characters long (got 10485760 characters)',
    )
  })
})
