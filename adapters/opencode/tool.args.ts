import { forgeToolRefusal } from "../../machines/agent.partition"
import type { ToolContext, ToolDefinition, ToolResult, tool } from "@opencode-ai/plugin"
import * as z from "zod"
import { type ScreenFields, withoutScreenFields } from "./tool.screen"

// Every Forge tool parses its arguments here. opencode 1.18.33 hands execute() the model's raw arguments (its own
// check does not stop a bad call, and zod defaults are never applied), so a number where a string belongs reaches
// the service as is: plan_edit once looped forever on one. Each tool defines its args once; the same shape goes to
// opencode (the JSON Schema the model sees) and, made strict, parses the raw input before anything runs.
// Tools are plain objects, not the plugin's tool() helper: that module imports zod's whole `z` namespace (every
// locale, JSON Schema import), about 440 KB that opencode would evaluate at every start. The package's one zod
// (package.json overrides) is the plugin's, so the types are the ones opencode inspects.

type Shape = Parameters<typeof tool>[0]["args"]
const strictSchema = <S extends Shape>(shape: S) => z.strictObject(shape)
type StrictSchema<S extends Shape> = ReturnType<typeof strictSchema<S>>
type Issue = NonNullable<ReturnType<StrictSchema<Shape>["safeParse"]>["error"]>["issues"][number]

/** A tool's arguments after the parse: types checked, defaults filled in. */
export type ToolArgs<S extends Shape> = Parameters<Parameters<typeof tool<S>>[0]["execute"]>[0]

/**
 * A Forge tool's answer: the model's text, and the tool part's title (what happened, in a few words) and metadata.
 * opencode's TUI draws neither; its web and desktop clients and the SDK do.
 */
export interface ForgeToolResult {
  output: string
  title: string
  metadata: ScreenFields
}

export interface ForgeToolSpec<S extends Shape> {
  description: string
  args: S
  execute(args: ToolArgs<S>, ctx: ToolContext): Promise<ForgeToolResult>
}

/**
 * A tool whose execute() only ever sees arguments its own schema accepted, called by an agent the partition lets call
 * it: the agent is asked first (opencode names the caller here, where tool hooks are not told), before anything runs.
 */
export function forgeTool<S extends Shape>(id: string, spec: ForgeToolSpec<S>): ToolDefinition {
  const schema = strictSchema(spec.args)
  return {
    description: spec.description,
    args: spec.args,
    execute: async (raw: unknown, ctx: ToolContext): Promise<ToolResult> => {
      const refusal = forgeToolRefusal(ctx.agent, id)
      if (refusal !== null) throw new Error(refusal)
      return spec.execute(parseToolArgs(id, schema, withoutScreenFields(raw)), ctx)
    },
  }
}

/** Parses raw tool input, or throws one error naming the tool and every argument that is wrong and how. */
export function parseToolArgs<S extends Shape>(id: string, schema: StrictSchema<S>, raw: unknown): ToolArgs<S> {
  // A call without arguments is a call with none; every other non-object is refused below.
  const parsed = schema.safeParse(raw === undefined ? {} : raw, { reportInput: true })
  if (parsed.success) return parsed.data
  throw new Error(`${id}: ${parsed.error.issues.flatMap(describeIssue).join("; ")}`)
}

function describeIssue(issue: Issue): string[] {
  const name = argumentName(issue.path)
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => (name === "" ? `unknown argument "${key}"` : `argument "${name}" has an unknown key "${key}"`))
  }
  if (name === "") return [`arguments must be an object (got ${typeName(issue.input)})`]
  const arg = `argument "${name}"`
  switch (issue.code) {
    case "invalid_union": {
      // An argument of several forms (a check is a command or a file contract): what each form found wrong.
      const forms = issue.errors.map(
        (issues, i) => `(${i + 1}) ${issues.flatMap((inner) => describeIssue({ ...inner, path: [...issue.path, ...inner.path] } as Issue)).join(", ")}`,
      )
      return forms.length === 0 ? [`${arg}: ${issue.message}`] : [`${arg} matches none of its forms: ${forms.join("; or ")}`]
    }
    case "invalid_type":
      if (issue.input === undefined) return [`${arg} is missing (expected ${expectedType(issue.expected)})`]
      if (issue.expected === "int") return [`${arg} must be a whole number (got ${shown(issue.input)})`]
      return [`${arg} must be ${expectedType(issue.expected)} (got ${typeName(issue.input)})`]
    case "invalid_value":
      if (issue.input === undefined) return [`${arg} is missing (expected one of ${issue.values.map(String).join(", ")})`]
      return [`${arg} must be one of ${issue.values.map(String).join(", ")} (got ${shown(issue.input)})`]
    case "too_small":
      return [`${arg} ${sizeRule(issue.origin, "at least", issue.minimum, issue.inclusive)} (got ${sizeOf(issue.origin, issue.input)})`]
    case "too_big":
      return [`${arg} ${sizeRule(issue.origin, "at most", issue.maximum, issue.inclusive)} (got ${sizeOf(issue.origin, issue.input)})`]
    default:
      return [`${arg}: ${issue.message}`]
  }
}

/** `checks[0].criterion` for ["checks", 0, "criterion"]; "" for the arguments object itself. */
function argumentName(path: readonly PropertyKey[]): string {
  return path.reduce<string>((name, key) => (typeof key === "number" ? `${name}[${key}]` : name === "" ? String(key) : `${name}.${String(key)}`), "")
}

const EXPECTED: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  array: "an array",
  object: "an object",
}

function expectedType(expected: string): string {
  return EXPECTED[expected] ?? expected
}

function typeName(value: unknown): string {
  if (value === null) return "null"
  if (Array.isArray(value)) return "array"
  return typeof value
}

/** The offending value itself, short enough for one line. */
function shown(value: unknown): string {
  const text = typeof value === "number" ? String(value) : (JSON.stringify(value) ?? typeName(value))
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}

function sizeRule(origin: string, bound: "at least" | "at most", limit: number | bigint, inclusive: boolean | undefined): string {
  const exclusive = inclusive === false
  const edge = exclusive ? (bound === "at least" ? "more than" : "less than") : bound
  if (origin === "string") {
    if (bound === "at least" && Number(limit) === 1 && !exclusive) return "must not be empty"
    return `must be ${edge} ${limit} characters long`
  }
  if (origin === "array") return `must hold ${edge} ${limit} item${Number(limit) === 1 ? "" : "s"}`
  return `must be ${exclusive ? (bound === "at least" ? "greater than" : "less than") : bound} ${limit}`
}

function sizeOf(origin: string, input: unknown): string {
  if (origin === "string" && typeof input === "string") return `${input.length} characters`
  if (origin === "array" && Array.isArray(input)) return `${input.length} item${input.length === 1 ? "" : "s"}`
  return shown(input)
}
