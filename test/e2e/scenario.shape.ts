// The shape of a scenario file: one JSON document describing a workspace, how the plugin is installed, the user
// turns, the scripted model replies and what must hold afterwards. Every object is strict so a typo is an error
// that names its key path instead of a silently ignored setting. The rules between keys (which mode allows what)
// are in scenario.schema.ts; README.md documents every key.
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

/** Text checks on one string: every `contains` is in it, no `notContains` is, `matches` matches (flag m). */
const textMatch = z.strictObject({
  contains: oneOrMany.optional(),
  notContains: oneOrMany.optional(),
  matches: regex.optional(),
})

/** A text check on the TUI's screen: an empty one would hold at once, so at least one key is needed. */
const screenMatch = textMatch.refine((m) => m.contains !== undefined || m.notContains !== undefined || m.matches !== undefined, {
  message: 'a screen check needs at least one of "contains", "notContains" or "matches"',
})

/**
 * One key of a TUI-mode `keys` turn: a tmux key name (tmux would type an unknown name as text, so the names are
 * checked here), or literal text to type.
 */
const tmuxKey = z
  .string()
  .regex(
    /^(?:[CMS]-)*(?:Up|Down|Left|Right|BSpace|BTab|DC|End|Enter|Escape|F[1-9]|F1[0-2]|Home|IC|NPage|PageDown|PgDn|PPage|PageUp|PgUp|Space|Tab|[!-~])$/,
    'not a tmux key name (e.g. "Enter", "Escape", "Tab", "Up", "BSpace", "C-x", "M-Enter"); type text with { "text": "…" }',
  )
const keyItem = z.union([tmuxKey, z.strictObject({ text: z.string().min(1) })])

/** A TUI turn's screen kept for the docs (tui-mode.capture.ts): its rows from the last showing `from` to the first after showing `to`. */
const captureSpec = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "a capture's name is a slug ([a-z0-9-]): it names docs/captures/<name>.txt"),
  from: z.string().min(1),
  to: z.string().min(1),
})

const toolCall = z.strictObject({
  tool: z.string().min(1),
  args: jsonObject.default({}),
})

/** 1-based number of an `opencode serve` process of a scenario (see `servers`). */
const serverNumber = z.int().min(1, "servers are numbered from 1")

/** Most servers a scenario may start: each one is a real opencode (~500 MB). */
export const MAX_SERVERS = 4

/** 1-based number of a workspace of a scenario with `workspaces`. */
const workspaceNumber = z.int().min(1, "workspaces are numbered from 1")

/** Most workspaces one scenario runs on its host at the same time. */
export const MAX_WORKSPACES = 4

/**
 * One scripted model reply: a text answer, one tool call, or several tool calls in the same step (as an array, or
 * as `tools` of an object). The object form may name the `server` whose requests it answers (concurrent turns ask
 * in no fixed order), and the `session` (the scenario's own is 1; a session the plugin opens, such as a loop's pass,
 * asks while the scenario's session may still be asking).
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
      workspace: workspaceNumber.optional(),
      session: z.int().min(1, "sessions are numbered from 1").optional(),
    })
    .superRefine((step, ctx) => {
      const kinds = [step.tool !== undefined, step.text !== undefined, step.tools !== undefined].filter(Boolean).length
      if (kinds !== 1) ctx.addIssue({ code: "custom", message: 'a model step needs exactly one of "tool", "text" or "tools"' })
      if (step.args !== undefined && step.tool === undefined) ctx.addIssue({ code: "custom", path: ["args"], message: '"args" belongs to a "tool" step' })
    }),
])

const lifecycleExpectation = z.strictObject({
  machine: z.string().min(1),
  instance: z.string().min(1).optional(),
  state: z.string().min(1),
  terminal: z.boolean().optional(),
})

const turn = z
  .strictObject({
    prompt: z.string().min(1).optional(),
    command: z.string().min(1).optional(),
    arguments: z.string().optional(),
    restart: z.literal(true).optional(),
    keys: z.array(keyItem).min(1).optional(),
    screen: screenMatch.optional(),
    capture: captureSpec.optional(),
    agent: z.string().min(1).optional(),
    auto: z.boolean().optional(),
    exitCode: z.int().min(0).optional(),
    timeoutMs: z.int().positive().optional(),
    settleMs: z.int().min(0).optional(),
    server: serverNumber.optional(),
    workspace: workspaceNumber.optional(),
    wait: z.literal(false, '"wait" can only be false (leave it out for a turn that is waited for)').optional(),
    until: lifecycleExpectation.optional(),
  })
  .superRefine((t, ctx) => {
    const kinds = [t.prompt !== undefined, t.command !== undefined, t.restart !== undefined, t.keys !== undefined].filter(Boolean).length
    if (kinds !== 1) {
      ctx.addIssue({ code: "custom", message: 'a turn needs exactly one of "prompt", "command", "restart" or "keys"' })
      return
    }
    if (t.arguments !== undefined && t.command === undefined)
      ctx.addIssue({ code: "custom", path: ["arguments"], message: '"arguments" belongs to a "command" turn' })
    if (t.restart !== undefined) {
      for (const key of ["agent", "auto", "exitCode", "wait"] as const)
        if (t[key] !== undefined) ctx.addIssue({ code: "custom", path: [key], message: `"${key}" does not apply to a restart turn` })
    }
    if (t.keys !== undefined && t.agent !== undefined) ctx.addIssue({ code: "custom", path: ["agent"], message: '"agent" does not apply to a keys turn' })
  })

const permissionReply = z.strictObject({
  permission: z.string().min(1),
  reply: z.enum(["once", "always", "reject"]),
  server: serverNumber.optional(),
  workspace: workspaceNumber.optional(),
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
  title: textMatch.optional(),
  metadata: jsonObject.optional(),
})

const userMessageExpectation = z.strictObject({
  message: z.union([z.int().min(1), z.literal("last")]).default("last"),
  shown: textMatch.optional(),
  hidden: textMatch.optional(),
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

/**
 * Picks a model request by what it holds instead of its number (requests of parallel subagents, or of concurrent
 * turns, arrive in no fixed order): exactly one scripted request must match every key.
 */
const modelRequestSelector = z
  .strictObject({
    turn: z.int().min(1).optional(),
    server: serverNumber.optional(),
    workspace: workspaceNumber.optional(),
    model: z.string().min(1).optional(),
    message: textMatch.optional(),
    system: textMatch.optional(),
    history: textMatch.optional(),
  })
  .refine((w) => Object.values(w).some((v) => v !== undefined), {
    message: '"where" needs at least one of "turn", "server", "workspace", "model", "message", "system" or "history"',
  })

/** A key path into a request body: keys joined with ".", e.g. "reasoning_effort" or "stream_options.include_usage". */
const bodyPath = z.string().regex(/^[^.]+(\.[^.]+)*$/, 'a key path: keys joined with "." (e.g. "reasoning_effort")')

const modelRequestExpectation = z
  .strictObject({
    request: z.int().min(1).optional(),
    where: modelRequestSelector.optional(),
    message: textMatch.optional(),
    system: textMatch.optional(),
    history: textMatch.optional(),
    toolsInclude: z.array(z.string().min(1)).optional(),
    toolsExclude: z.array(z.string().min(1)).optional(),
    model: z.string().min(1).optional(),
    body: jsonObject.optional(),
    bodyExcludes: z.array(bodyPath).min(1).optional(),
  })
  .superRefine((e, ctx) => {
    if ((e.request === undefined) === (e.where === undefined))
      ctx.addIssue({ code: "custom", message: 'a model request check needs exactly one of "request" (its number) or "where" (what it holds)' })
  })

/** One request of opencode's compaction agent, by its number among them (1 = the session's first compaction). */
const compactionRequestExpectation = z.strictObject({
  request: z.int().min(1),
  message: textMatch.optional(),
  system: textMatch.optional(),
  history: textMatch.optional(),
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
  compactionRequests: z.array(compactionRequestExpectation).default([]),
  watchdogLedger: z.array(watchdogLedgerExpectation).default([]),
  userMessages: z.array(userMessageExpectation).default([]),
  screen: screenMatch.optional(),
})

/** TUI mode: the size of the tmux window opencode draws in. */
const tuiSize = z.strictObject({
  width: z.int().min(40).max(500).default(200),
  height: z.int().min(10).max(200).default(50),
})

const workspaceFields = {
  files: z.record(relativePath, z.string()).default({}),
  git: z.boolean().default(false),
}
const workspace = z.strictObject(workspaceFields)

/** One of several workspaces served by one host at the same time: its seeds and what must hold in it afterwards. */
const sharedWorkspace = z.strictObject({ ...workspaceFields, expect: expectations.prefault({}) })

/** One page of the scenario's `web`, served as written on 127.0.0.1 (`{{web}}` + its path). */
const webPage = z.strictObject({
  body: z.string(),
  contentType: z.string().min(1).default("text/html; charset=utf-8"),
  status: z.int().min(200).max(599).default(200),
  headers: z.record(z.string().regex(/^[A-Za-z0-9-]+$/, "not a valid header name"), z.string()).default({}),
})

/** A web path: absolute, no query (the query is not part of the match). */
const webPath = z.string().regex(/^\/[^?#\s]*$/, "must start with / and hold no query, fragment or space")

export const scenarioObject = z.strictObject({
  $schema: z.string().optional(),
  name: z.string().min(1).optional(),
  description: z.string().optional(),
  mode: z.enum(["run", "serve", "tui"]).default("run"),
  host: z.enum(["shared", "own"]).optional(),
  install: z.enum(["file", "package", "single-file"]).default("file"),
  pluginPath: z.string().min(1).optional(),
  pluginOptions: jsonObject.optional(),
  config: jsonObject.default({}),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "not a valid environment variable name"), z.string()).default({}),
  workspace: workspace.prefault({}),
  workspaces: z.array(sharedWorkspace).min(2, 'at least two workspaces (one is the scenario\'s own "workspace")').max(MAX_WORKSPACES).optional(),
  web: z.record(webPath, webPage).default({}),
  auto: z.boolean().default(false),
  timeoutMs: z.int().positive().default(90_000),
  settleMs: z.int().min(0).default(500),
  servers: serverNumber.max(MAX_SERVERS, `at most ${MAX_SERVERS} servers (each one is a real opencode of ~500 MB)`).default(1),
  dbPath: relativePath.default(".opencode/forge/forge.db"),
  logLevel: z.enum(["DEBUG", "INFO", "WARN", "ERROR"]).default("INFO"),
  tui: tuiSize.optional(),
  turns: z.array(turn).min(1),
  model: z.array(modelStep).default([]),
  permissions: z.array(permissionReply).default([]),
  expect: expectations.prefault({}),
})

export type ToolCall = z.output<typeof toolCall>
