// The scenario file format: the strict shape (scenario.shape.ts) plus the rules between keys, mostly which mode
// allows what, each reported at the key path it concerns. README.md documents every key.
import type { z } from "zod"
import { scenarioObject, type ToolCall } from "./scenario.shape"

export type { ToolCall }

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
  for (const [i, e] of s.expect.modelRequests.entries()) inRange(e.where?.server, ["expect", "modelRequests", i, "where", "server"])
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
    // With several workspaces a group's turns differ by workspace (checkWorkspaces), all on the one server.
    else if (group.length > 0 && s.workspaces === undefined) {
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

/** Expectations that belong to one workspace: with `workspaces`, they go in that workspace's own `expect`. */
const WORKSPACE_CHECKS = ["files", "toolResults", "toolCounts", "lifecycles", "transitions", "userMessages", "watchdogLedger"] as const

/**
 * Several workspaces on one host: every `workspace` names one of them, the top-level `workspace` and workspace-bound
 * checks move into `workspaces`, a workspace's own checks leave out what is the whole run's (the log), and the
 * workspaces need the host to be shared.
 */
function checkWorkspaces(s: ScenarioShape, ctx: z.RefinementCtx): void {
  const count = s.workspaces?.length ?? 0
  const named = (workspace: number | undefined, path: (string | number)[]) => {
    if (workspace === undefined) return
    if (count === 0) ctx.addIssue({ code: "custom", path, message: '"workspace" needs "workspaces"' })
    else if (workspace > count)
      ctx.addIssue({ code: "custom", path, message: `workspace ${workspace} does not exist: the scenario has ${count} (see "workspaces")` })
  }
  for (const [i, t] of s.turns.entries()) named(t.workspace, ["turns", i, "workspace"])
  for (const [i, step] of s.model.entries()) if (!Array.isArray(step)) named(step.workspace, ["model", i, "workspace"])
  for (const [i, p] of s.permissions.entries()) named(p.workspace, ["permissions", i, "workspace"])
  for (const [i, e] of s.expect.modelRequests.entries()) named(e.where?.workspace, ["expect", "modelRequests", i, "where", "workspace"])
  if (s.workspaces === undefined) return
  if (s.mode !== "serve") ctx.addIssue({ code: "custom", path: ["workspaces"], message: '"workspaces" needs "mode": "serve" (one host serving them all)' })
  if (s.servers > 1) ctx.addIssue({ code: "custom", path: ["workspaces"], message: '"workspaces" share one host: they cannot run with "servers"' })
  if (s.host === "own") ctx.addIssue({ code: "custom", path: ["host"], message: '"workspaces" run on a shared host' })
  for (const reason of ownHostReasons(s)) ctx.addIssue({ code: "custom", path: ["workspaces"], message: `"workspaces" run on a shared host, but ${reason}` })
  if (Object.keys(s.workspace.files).length > 0 || s.workspace.git)
    ctx.addIssue({ code: "custom", path: ["workspace"], message: 'with "workspaces", seed workspace 1 in workspaces[0]' })
  for (const key of WORKSPACE_CHECKS) {
    const value = s.expect[key]
    if (Array.isArray(value) ? value.length > 0 : Object.keys(value).length > 0)
      ctx.addIssue({ code: "custom", path: ["expect", key], message: `with "workspaces", put it in the expect of the workspace it is about` })
  }
  s.workspaces.forEach((w, k) => {
    if (w.expect.logs.length > 0)
      ctx.addIssue({ code: "custom", path: ["workspaces", k, "expect", "logs"], message: 'the log is the whole run\'s: put "logs" in the top-level "expect"' })
    w.expect.modelRequests.forEach((e, i) => {
      if (e.where?.workspace !== undefined)
        ctx.addIssue({
          code: "custom",
          path: ["workspaces", k, "expect", "modelRequests", i, "where", "workspace"],
          message: "a workspace's own checks see only its own requests",
        })
    })
  })
  // A group's turns run at the same time in different workspaces.
  let group: number[] = []
  s.turns.forEach((t, i) => {
    const clash = group.find((j) => (s.turns[j]?.workspace ?? 1) === (t.workspace ?? 1))
    if (clash !== undefined)
      ctx.addIssue({
        code: "custom",
        path: ["turns", i, "workspace"],
        message: `runs alongside turns[${clash}] in the same workspace ${t.workspace ?? 1}; turns that run at the same time need different workspaces`,
      })
    group = t.wait === false ? [...group, i] : []
  })
}

/** Run and TUI mode drive one opencode process that is never restarted: the keys of several servers and restarts are refused. */
function refineNotServe(s: ScenarioShape, ctx: z.RefinementCtx): void {
  const run = s.mode === "run"
  if (s.permissions.length > 0)
    ctx.addIssue({
      code: "custom",
      path: ["permissions"],
      message: run
        ? 'permission replies need "mode": "serve"; in run mode use "auto": true (approve every ask) or leave it off (reject every ask)'
        : 'permission replies need "mode": "serve"; in TUI mode answer the permission dialog with a "keys" turn (wait for the dialog with "screen")',
    })
  s.turns.forEach((t, i) => {
    if (t.restart)
      ctx.addIssue({
        code: "custom",
        path: ["turns", i, "restart"],
        message: run
          ? 'restart turns need "mode": "serve" (every run-mode turn is already a fresh process)'
          : 'restart turns need "mode": "serve" (TUI mode keeps one opencode for the whole scenario)',
      })
    // A TUI turn settles on the session's idle like a serve-mode turn, so settleMs applies there.
    for (const key of run ? (["settleMs", "server", "wait", "until"] as const) : (["server", "wait", "until"] as const))
      if (t[key] !== undefined) ctx.addIssue({ code: "custom", path: ["turns", i, key], message: `"${key}" applies to serve mode only` })
  })
  if (s.servers !== 1) ctx.addIssue({ code: "custom", path: ["servers"], message: '"servers" applies to serve mode only' })
  s.model.forEach((step, i) => {
    if (!Array.isArray(step) && step.server !== undefined)
      ctx.addIssue({ code: "custom", path: ["model", i, "server"], message: '"server" applies to serve mode only' })
  })
  for (const [i, e] of s.expect.toolResults.entries())
    if (e.server !== undefined) ctx.addIssue({ code: "custom", path: ["expect", "toolResults", i, "server"], message: '"server" applies to serve mode only' })
  for (const [i, e] of s.expect.modelRequests.entries())
    if (e.where?.server !== undefined)
      ctx.addIssue({ code: "custom", path: ["expect", "modelRequests", i, "where", "server"], message: '"server" applies to serve mode only' })
}

/** Exit codes and `--auto` belong to `opencode run`. */
function refineNotRun(s: ScenarioShape, ctx: z.RefinementCtx): void {
  if (s.auto)
    ctx.addIssue({
      code: "custom",
      path: ["auto"],
      message:
        s.mode === "serve"
          ? '"auto" applies to run mode only; in serve mode list "permissions" replies'
          : '"auto" applies to run mode only; in TUI mode answer permission dialogs with "keys" turns',
    })
  if (s.expect.exitCode !== undefined) ctx.addIssue({ code: "custom", path: ["expect", "exitCode"], message: '"exitCode" applies to run mode only' })
  s.turns.forEach((t, i) => {
    for (const key of ["auto", "exitCode"] as const)
      if (t[key] !== undefined) ctx.addIssue({ code: "custom", path: ["turns", i, key], message: `"${key}" applies to run mode only` })
  })
}

/** Keys, screens and the window size exist only where a terminal is drawn. */
function refineNotTui(s: ScenarioShape, ctx: z.RefinementCtx): void {
  if (s.tui !== undefined) ctx.addIssue({ code: "custom", path: ["tui"], message: '"tui" applies to TUI mode only ("mode": "tui")' })
  s.turns.forEach((t, i) => {
    if (t.keys !== undefined) ctx.addIssue({ code: "custom", path: ["turns", i, "keys"], message: 'keys turns need "mode": "tui"' })
    if (t.screen !== undefined) ctx.addIssue({ code: "custom", path: ["turns", i, "screen"], message: '"screen" applies to TUI mode only' })
    if (t.capture !== undefined) ctx.addIssue({ code: "custom", path: ["turns", i, "capture"], message: '"capture" applies to TUI mode only' })
  })
  if (s.expect.screen !== undefined) ctx.addIssue({ code: "custom", path: ["expect", "screen"], message: '"screen" applies to TUI mode only' })
}

/**
 * Why a serve-mode scenario needs an opencode process of its own: what it does reaches past its project folder
 * (a restart, several processes, the process environment or log level, the global plugin dir or HOME). Empty when a
 * shared host serves it as well.
 */
export function ownHostReasons(s: ScenarioShape): string[] {
  const reasons: string[] = []
  const restart = s.turns.findIndex((t) => t.restart)
  if (restart >= 0) reasons.push(`turns[${restart}] restarts opencode`)
  if (s.servers > 1) reasons.push(`it runs ${s.servers} servers`)
  if (Object.keys(s.env).length > 0) reasons.push(`"env" sets the process environment (${Object.keys(s.env).join(", ")})`)
  if (s.logLevel !== "INFO") reasons.push(`"logLevel" ${s.logLevel} is the process's`)
  if (s.install === "single-file") reasons.push('a "single-file" install goes into the global plugin dir')
  if (JSON.stringify([s.model, s.turns, s.workspace, s.config, s.pluginOptions ?? null]).includes("{{home}}")) reasons.push('"{{home}}" is the host\'s HOME')
  for (const name of [".opencode/opencode.json", ".opencode/opencode.jsonc"])
    if (name in s.workspace.files) reasons.push(`the workspace seeds ${name}, where a shared host's scenario keeps its config`)
  // A process's forge.json pools are one anchor set, the first directory's pool the primary (plain forge-<id> names).
  if (".opencode/forge.json" in s.workspace.files) reasons.push("the workspace seeds .opencode/forge.json, whose workers are named by the process's first one")
  return reasons
}

/** Where a scenario's opencode runs: on a host of its own, or (serve mode, by default) on a shared one. */
export function scenarioHost(s: ScenarioShape): "own" | "shared" {
  if (s.mode !== "serve") return "own"
  return s.host ?? (ownHostReasons(s).length > 0 ? "own" : "shared")
}

export const scenarioSchema = scenarioObject.superRefine((s, ctx) => {
  checkWorkspaces(s, ctx)
  if (s.host === "shared" && s.mode !== "serve")
    ctx.addIssue({
      code: "custom",
      path: ["host"],
      message: `a shared host serves serve-mode scenarios only; ${s.mode === "run" ? "run mode starts opencode run for every turn" : "TUI mode starts its own TUI"}`,
    })
  else if (s.host === "shared") for (const reason of ownHostReasons(s)) ctx.addIssue({ code: "custom", path: ["host"], message: `needs "own": ${reason}` })
  if (s.mode !== "serve") refineNotServe(s, ctx)
  if (s.mode !== "run") refineNotRun(s, ctx)
  if (s.mode === "serve") checkServers(s, ctx)
  if (s.mode !== "tui") refineNotTui(s, ctx)
  if (s.mode === "tui")
    s.turns.forEach((t, i) => {
      // The TUI picks the agent itself; a user switches with Tab.
      if (t.agent !== undefined && t.keys === undefined)
        ctx.addIssue({
          code: "custom",
          path: ["turns", i, "agent"],
          message: '"agent" cannot be passed in TUI mode; switch agents with a "keys" turn (e.g. "Tab")',
        })
      // A capture is taken once the turn's screen holds: without a screen check, the rows could be from before it.
      if (t.capture !== undefined && t.screen === undefined)
        ctx.addIssue({
          code: "custom",
          path: ["turns", i, "capture"],
          message: '"capture" needs a "screen" check on its turn: it is taken once the screen holds',
        })
    })
  if (s.mode === "run" && s.expect.userMessages.length > 0)
    ctx.addIssue({
      code: "custom",
      path: ["expect", "userMessages"],
      message: '"userMessages" needs "mode": "serve" or "tui" (run mode does not read the session\'s messages)',
    })
  if (Object.keys(s.web).length === 0 && JSON.stringify([s.model, s.turns, s.workspace, s.env, s.config]).includes("{{web}}"))
    ctx.addIssue({ code: "custom", path: ["web"], message: '"{{web}}" is used, but the scenario declares no "web" pages to serve' })
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
export type WebPage = Scenario["web"][string]
export type KeyItem = NonNullable<Turn["keys"]>[number]
export type ModelStep = Scenario["model"][number]
export type Expectations = Scenario["expect"]
export type FileExpectation = Expectations["files"][number]
export type ToolResultExpectation = Expectations["toolResults"][number]
export type ModelRequestExpectation = Expectations["modelRequests"][number]
export type CompactionRequestExpectation = Expectations["compactionRequests"][number]
export type ModelRequestSelector = NonNullable<ModelRequestExpectation["where"]>
export type WatchdogLedgerExpectation = Expectations["watchdogLedger"][number]
export type UserMessageExpectation = Expectations["userMessages"][number]
export type TextMatch = NonNullable<ToolResultExpectation["title"]>

/** Tool calls of a step, or undefined for a text step. */
export function stepToolCalls(step: ModelStep): ToolCall[] | undefined {
  if (Array.isArray(step)) return step
  if (step.tools !== undefined) return step.tools
  if (step.tool !== undefined) return [{ tool: step.tool, args: step.args ?? {} }]
  return undefined
}

/**
 * The channel a step is reserved for — its `server`, or its `workspace` (a scenario has several of one or the
 * other, never both) — or undefined when any may be served it.
 */
export function stepChannel(step: ModelStep): number | undefined {
  return Array.isArray(step) ? undefined : (step.server ?? step.workspace)
}

/** The session a step is served to (numbered on its channel in the order sessions first asked for a step), if tagged. */
export function stepSession(step: ModelStep): number | undefined {
  return Array.isArray(step) ? undefined : step.session
}

/** The channel a turn talks to the model on: its server, or its workspace. */
export function turnChannel(turn: Turn): number {
  return turn.server ?? turn.workspace ?? 1
}
