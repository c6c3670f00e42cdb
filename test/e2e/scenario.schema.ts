// The scenario file format: one JSON document describing a workspace, how the plugin is installed, the user
// turns, the scripted model replies and what must hold afterwards. Every object is strict so a typo is an error
// that names its key path instead of a silently ignored setting. README.md documents every key.
import { z } from "zod"

function isValidRegex(source: string): boolean {
  try {
    new RegExp(source)
    return true
  } catch {
    return false
  }
}

/** A regular expression source (JavaScript syntax, no slashes, no flags). */
const regex = z.string().min(1).refine(isValidRegex, { message: "not a valid regular expression" })

/** Workspace-relative path that cannot escape the project folder. */
const relativePath = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith("/") && !p.split(/[\\/]/).includes(".."), {
    message: "must be a relative path inside the project (no leading / and no ..)",
  })

const oneOrMany = z.union([z.string(), z.array(z.string()).min(1)])

const jsonObject = z.record(z.string(), z.unknown())

const toolCall = z.strictObject({
  tool: z.string().min(1),
  args: jsonObject.default({}),
})

/** 1-based number of an `opencode serve` process of a scenario (see `servers`). */
const serverNumber = z.int().min(1, "servers are numbered from 1")

/** Most servers a scenario may start: each one is a real opencode (~500 MB). */
export const MAX_SERVERS = 4

/**
 * One scripted model reply: a text answer, one tool call, or several tool calls in the same step (as an array, or
 * as `tools` of an object). The object form may name the `server` whose requests it answers (concurrent turns ask
 * in no fixed order).
 */
const modelStep = z.union([
  z.array(toolCall).min(1),
  z
    .strictObject({
      tool: z.string().min(1).optional(),
      args: jsonObject.optional(),
      text: z.string().optional(),
      tools: z.array(toolCall).min(1).optional(),
      server: serverNumber.optional(),
    })
    .superRefine((step, ctx) => {
      const kinds = [step.tool !== undefined, step.text !== undefined, step.tools !== undefined].filter(Boolean).length
      if (kinds !== 1) ctx.addIssue({ code: "custom", message: 'a model step needs exactly one of "tool", "text" or "tools"' })
      if (step.args !== undefined && step.tool === undefined) ctx.addIssue({ code: "custom", path: ["args"], message: '"args" belongs to a "tool" step' })
    }),
])

const turn = z
  .strictObject({
    prompt: z.string().min(1).optional(),
    command: z.string().min(1).optional(),
    arguments: z.string().optional(),
    restart: z.literal(true).optional(),
    agent: z.string().min(1).optional(),
    auto: z.boolean().optional(),
    exitCode: z.int().min(0).optional(),
    timeoutMs: z.int().positive().optional(),
    settleMs: z.int().min(0).optional(),
    server: serverNumber.optional(),
    wait: z.literal(false, '"wait" can only be false (leave it out for a turn that is waited for)').optional(),
  })
  .superRefine((t, ctx) => {
    const kinds = [t.prompt !== undefined, t.command !== undefined, t.restart !== undefined].filter(Boolean).length
    if (kinds !== 1) {
      ctx.addIssue({ code: "custom", message: 'a turn needs exactly one of "prompt", "command" or "restart"' })
      return
    }
    if (t.arguments !== undefined && t.command === undefined)
      ctx.addIssue({ code: "custom", path: ["arguments"], message: '"arguments" belongs to a "command" turn' })
    if (t.restart !== undefined) {
      for (const key of ["agent", "auto", "exitCode", "wait"] as const)
        if (t[key] !== undefined) ctx.addIssue({ code: "custom", path: [key], message: `"${key}" does not apply to a restart turn` })
    }
  })

const permissionReply = z.strictObject({
  permission: z.string().min(1),
  reply: z.enum(["once", "always", "reject"]),
  server: serverNumber.optional(),
})

const fileExpectation = z
  .strictObject({
    path: relativePath,
    exists: z.boolean().default(true),
    count: z.int().min(0).optional(),
    contains: oneOrMany.optional(),
    notContains: oneOrMany.optional(),
    matches: regex.optional(),
    frontmatter: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
  })
  .superRefine((f, ctx) => {
    const content = [f.contains, f.notContains, f.matches, f.frontmatter].some((v) => v !== undefined)
    if (!f.exists && (content || (f.count !== undefined && f.count !== 0)))
      ctx.addIssue({ code: "custom", message: 'content checks and "count" need "exists": true' })
  })

const toolResultExpectation = z.strictObject({
  tool: z.string().min(1),
  server: serverNumber.optional(),
  occurrence: z.union([z.int().min(1), z.literal("last")]).default(1),
  status: z.enum(["completed", "error"]).optional(),
  contains: oneOrMany.optional(),
  notContains: oneOrMany.optional(),
  matches: regex.optional(),
  args: jsonObject.optional(),
})

const lifecycleExpectation = z.strictObject({
  machine: z.string().min(1),
  instance: z.string().min(1).optional(),
  state: z.string().min(1),
  terminal: z.boolean().optional(),
})

const transitionExpectation = z
  .strictObject({
    machine: z.string().min(1),
    instance: z.string().min(1).optional(),
    from: z.string().min(1).optional(),
    event: z.string().min(1).optional(),
    to: z.string().min(1).optional(),
  })
  .superRefine((t, ctx) => {
    if (t.from === undefined && t.event === undefined && t.to === undefined)
      ctx.addIssue({ code: "custom", message: 'a transition needs at least one of "from", "event" or "to"' })
  })

const logExpectation = z.strictObject({
  matches: regex,
  absent: z.boolean().default(false),
})

const textMatch = z.strictObject({
  contains: oneOrMany.optional(),
  notContains: oneOrMany.optional(),
  matches: regex.optional(),
})

const modelRequestExpectation = z.strictObject({
  request: z.int().min(1),
  message: textMatch.optional(),
  system: textMatch.optional(),
  toolsInclude: z.array(z.string().min(1)).optional(),
  toolsExclude: z.array(z.string().min(1)).optional(),
  model: z.string().min(1).optional(),
})

const watchdogLedgerExpectation = z.strictObject({
  kind: z.enum(["warn", "kill", "dry-run", "degraded", "unresolved", "config-fallback"]),
  message: textMatch.optional(),
  withPids: z.boolean().optional(),
})

const expectations = z.strictObject({
  exitCode: z.int().min(0).optional(),
  files: z.array(fileExpectation).default([]),
  toolResults: z.array(toolResultExpectation).default([]),
  toolCounts: z.record(z.string().min(1), z.int().min(0)).default({}),
  lifecycles: z.array(lifecycleExpectation).default([]),
  transitions: z.array(transitionExpectation).default([]),
  logs: z.array(logExpectation).default([]),
  modelRequests: z.array(modelRequestExpectation).default([]),
  watchdogLedger: z.array(watchdogLedgerExpectation).default([]),
})

const workspace = z.strictObject({
  files: z.record(relativePath, z.string()).default({}),
  git: z.boolean().default(false),
})

const scenarioObject = z.strictObject({
  $schema: z.string().optional(),
  name: z.string().min(1).optional(),
  description: z.string().optional(),
  mode: z.enum(["run", "serve"]).default("run"),
  install: z.enum(["file", "package", "single-file"]).default("file"),
  pluginPath: z.string().min(1).optional(),
  pluginOptions: jsonObject.optional(),
  config: jsonObject.default({}),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "not a valid environment variable name"), z.string()).default({}),
  workspace: workspace.prefault({}),
  auto: z.boolean().default(false),
  timeoutMs: z.int().positive().default(90_000),
  settleMs: z.int().min(0).default(500),
  servers: serverNumber.max(MAX_SERVERS, `at most ${MAX_SERVERS} servers (each one is a real opencode of ~500 MB)`).default(1),
  dbPath: relativePath.default(".opencode/forge/forge.db"),
  logLevel: z.enum(["DEBUG", "INFO", "WARN", "ERROR"]).default("INFO"),
  turns: z.array(turn).min(1),
  model: z.array(modelStep).default([]),
  permissions: z.array(permissionReply).default([]),
  expect: expectations.prefault({}),
})

type ScenarioShape = z.output<typeof scenarioObject>

/** Serve mode: every `server` names a started server, and `wait: false` groups are well formed. */
function checkServers(s: ScenarioShape, ctx: z.RefinementCtx): void {
  const inRange = (server: number | undefined, path: (string | number)[]) => {
    if (server !== undefined && server > s.servers)
      ctx.addIssue({ code: "custom", path, message: `server ${server} does not exist: the scenario starts ${s.servers} (see "servers")` })
  }
  s.model.forEach((step, i) => {
    if (!Array.isArray(step)) inRange(step.server, ["model", i, "server"])
  })
  for (const [i, p] of s.permissions.entries()) inRange(p.server, ["permissions", i, "server"])
  for (const [i, e] of s.expect.toolResults.entries()) inRange(e.server, ["expect", "toolResults", i, "server"])
  // A group is a run of turns with `wait: false` and the turn after them: they run at the same time, one per server.
  let group: number[] = []
  s.turns.forEach((t, i) => {
    inRange(t.server, ["turns", i, "server"])
    const server = t.server ?? 1
    if (group.length > 0 && t.restart)
      ctx.addIssue({
        code: "custom",
        path: ["turns", i, "restart"],
        message: 'a restart turn cannot run alongside the turn before it (that turn has "wait": false)',
      })
    else if (group.length > 0) {
      const clash = group.find((j) => (s.turns[j]?.server ?? 1) === server)
      if (clash !== undefined)
        ctx.addIssue({
          code: "custom",
          path: ["turns", i, "server"],
          message: `runs alongside turns[${clash}] on the same server ${server}; turns that run at the same time need different servers`,
        })
    }
    // A restart turn with "wait" is reported by the turn's own check and ends the group.
    if (t.wait === false && !t.restart) {
      group.push(i)
      if (i === s.turns.length - 1)
        ctx.addIssue({ code: "custom", path: ["turns", i, "wait"], message: '"wait": false needs a turn after it to run alongside' })
    } else group = []
  })
}

export const scenarioSchema = scenarioObject.superRefine((s, ctx) => {
  if (s.mode === "run") {
    if (s.permissions.length > 0)
      ctx.addIssue({
        code: "custom",
        path: ["permissions"],
        message: 'permission replies need "mode": "serve"; in run mode use "auto": true (approve every ask) or leave it off (reject every ask)',
      })
    s.turns.forEach((t, i) => {
      if (t.restart)
        ctx.addIssue({
          code: "custom",
          path: ["turns", i, "restart"],
          message: 'restart turns need "mode": "serve" (every run-mode turn is already a fresh process)',
        })
      for (const key of ["settleMs", "server", "wait"] as const)
        if (t[key] !== undefined) ctx.addIssue({ code: "custom", path: ["turns", i, key], message: `"${key}" applies to serve mode only` })
    })
    if (s.servers !== 1) ctx.addIssue({ code: "custom", path: ["servers"], message: '"servers" applies to serve mode only' })
    s.model.forEach((step, i) => {
      if (!Array.isArray(step) && step.server !== undefined)
        ctx.addIssue({ code: "custom", path: ["model", i, "server"], message: '"server" applies to serve mode only' })
    })
    for (const [i, e] of s.expect.toolResults.entries())
      if (e.server !== undefined) ctx.addIssue({ code: "custom", path: ["expect", "toolResults", i, "server"], message: '"server" applies to serve mode only' })
  } else {
    if (s.auto) ctx.addIssue({ code: "custom", path: ["auto"], message: '"auto" applies to run mode only; in serve mode list "permissions" replies' })
    if (s.expect.exitCode !== undefined) ctx.addIssue({ code: "custom", path: ["expect", "exitCode"], message: '"exitCode" applies to run mode only' })
    s.turns.forEach((t, i) => {
      for (const key of ["auto", "exitCode"] as const)
        if (t[key] !== undefined) ctx.addIssue({ code: "custom", path: ["turns", i, key], message: `"${key}" applies to run mode only` })
    })
    checkServers(s, ctx)
  }
  if (s.install === "single-file" && s.pluginOptions !== undefined)
    ctx.addIssue({
      code: "custom",
      path: ["pluginOptions"],
      message: "plugin options cannot be passed to a single-file install (opencode loads files in plugin/ without options)",
    })
})

/** A scenario as written in the file (defaults optional). */
export type ScenarioInput = z.input<typeof scenarioSchema>
/** A validated scenario with every default filled in. */
export type Scenario = z.output<typeof scenarioSchema>
export type Turn = Scenario["turns"][number]
export type ModelStep = Scenario["model"][number]
export type ToolCall = z.output<typeof toolCall>
export type Expectations = Scenario["expect"]
export type FileExpectation = Expectations["files"][number]
export type ToolResultExpectation = Expectations["toolResults"][number]
export type ModelRequestExpectation = Expectations["modelRequests"][number]
export type WatchdogLedgerExpectation = Expectations["watchdogLedger"][number]

/** Tool calls of a step, or undefined for a text step. */
export function stepToolCalls(step: ModelStep): ToolCall[] | undefined {
  if (Array.isArray(step)) return step
  if (step.tools !== undefined) return step.tools
  if (step.tool !== undefined) return [{ tool: step.tool, args: step.args ?? {} }]
  return undefined
}

/** The server a step is reserved for, or undefined when any server may be served it. */
export function stepServer(step: ModelStep): number | undefined {
  return Array.isArray(step) ? undefined : step.server
}
