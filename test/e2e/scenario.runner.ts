// Runs one scenario end to end against the real opencode binary: sandbox, fake model, turns, then checks.
// Expectation failures are reported in the result, never thrown; only an invalid scenario throws
// (ScenarioFileError), because then there is nothing meaningful to run.
import fs from "node:fs"
import path from "node:path"
import { withLane } from "./e2e.lanes"
import { evaluateExpectations, type Check } from "./expectations"
import { startWebPages, type WebPages } from "./web-pages"
import { serverLlmUrl, startFakeLlm, type FakeLlm, type ModelRequestRecord } from "./fake-llm"
import { readForgeDb, type ActorRow, type TransitionRow } from "./forge-db"
import type { Driver, DriverContext, NumberedTurn, SessionEvidence, ToolResult } from "./opencode.driver"
import { createRunModeDriver } from "./run-mode.driver"
import { loadScenarioFile, parseScenario } from "./scenario.loader"
import { type ModelStep, type Scenario, type ScenarioInput, scenarioHost, stepChannel, turnChannel } from "./scenario.schema"
import { attribute, describeRequest, groupCheck, harnessChecks, turnGroups } from "./scenario.turns"
import { createSandbox, opencodeBinary, opencodeVersion, REPO_ROOT, releaseSandbox, type Sandbox } from "./sandbox"
import { createServeModeDriver } from "./serve-mode.driver"
import { type SharedHost, sharedHost } from "./shared.host"
import { createTuiModeDriver } from "./tui-mode.driver"

export interface RunScenarioOptions {
  /** Repository whose plugin and node_modules are used. Default: the repository holding this harness. */
  repoRoot?: string
  /** Directory a relative scenario path is resolved from. Default: process.cwd(). */
  cwd?: string
  /** Keep the temp root (HOME, project, logs) instead of removing it; its path is in the result. */
  keep?: boolean
  /** Receives every progress line. Default: silent. */
  log?: (line: string) => void
  /**
   * Run in one of the machine's lanes (e2e.lanes.ts: at most FORGE_E2E_LANES scenarios at a time, default 2), waiting
   * for a free one. Default: true. Without, the scenario runs at once (a shared host of its own lane 0).
   */
  exclusive?: boolean
  /**
   * Awaited before each turn (the first of a concurrent group) with the turn's number and its workspace's project
   * folder: a test looks at the live workspace between turns (an inspector page, say) before the next turn runs.
   */
  beforeTurn?: (turn: number, project: string) => Promise<void>
}

export interface ScenarioResult {
  name: string
  /** Absolute path of the scenario file, when run from a file. */
  file?: string
  passed: boolean
  passedCount: number
  failedCount: number
  /** One line per failed check: `label: detail`. */
  failures: string[]
  checks: Check[]
  /** Every tool call, of every workspace (`workspace`: 1 without `workspaces`). */
  toolResults: (ToolResult & { workspace: number })[]
  actors: (ActorRow & { workspace: number })[]
  transitions: (TransitionRow & { workspace: number })[]
  modelRequests: ModelRequestRecord[]
  /** Where opencode ran: a host of the scenario's own, or a shared one. */
  host: "own" | "shared"
  /** The temp root, kept only with `keep: true` (workspace 1's; `roots` holds every workspace's). */
  root?: string
  roots?: string[]
  /** opencode stderr and log files (tail), for debugging a failure. */
  diagnostics: string
}

const DIAGNOSTICS_LIMIT = 200_000

/** One workspace of the scenario (a scenario without `workspaces` has one): its view, sandbox and driver. */
interface Unit {
  number: number
  scenario: Scenario
  sandbox: Sandbox
  driver: Driver
  dbFile: string
  /** Transitions already printed. */
  seen: number
}

const DRIVERS = { run: createRunModeDriver, serve: createServeModeDriver, tui: createTuiModeDriver }

/** The scenario as workspace `k` sees it: its own seeds, permission replies and checks. */
function workspaceView(scenario: Scenario, k: number): Scenario {
  const w = scenario.workspaces?.[k - 1]
  if (w === undefined) return scenario
  return {
    ...scenario,
    workspace: { files: w.files, git: w.git },
    expect: w.expect,
    permissions: scenario.permissions.filter((p) => (p.workspace ?? 1) === k),
  }
}

function describeTransition(t: TransitionRow, unit: Unit, several: boolean): string {
  return `  transition ${t.machine} ${t.instance}: ${t.from} --${t.event}--> ${t.to}${several ? ` [workspace ${unit.number}]` : ""}`
}

/** Prefixes the labels of a workspace's own checks when the scenario has several. */
function labelled(checks: Check[], unit: Unit, several: boolean): Check[] {
  return several ? checks.map((c) => ({ ...c, label: `workspace ${unit.number}: ${c.label}` })) : checks
}

async function execute(scenario: Scenario, file: string | undefined, options: RunScenarioOptions, lane: number): Promise<ScenarioResult> {
  const repoRoot = path.resolve(options.repoRoot ?? REPO_ROOT)
  const say = options.log ?? (() => {})
  const name = scenario.name ?? (file ? path.basename(file, ".json") : "scenario")
  const checks: Check[] = []
  const check = (label: string, ok: boolean, detail?: string) => checks.push(ok ? { label, ok } : { label, ok, detail })
  const steps: ModelStep[] = []
  const several = scenario.workspaces !== undefined
  const tag = scenario.servers > 1 ? "server" : several ? "workspace" : undefined
  const units: Unit[] = []
  let fake: FakeLlm | undefined
  let web: WebPages | undefined
  let toolResults: ScenarioResult["toolResults"] = []
  const actors: ScenarioResult["actors"] = []
  const transitions: ScenarioResult["transitions"] = []
  let diagnostics = ""

  const hostKind = scenarioHost(scenario)
  say(`scenario ${name} (mode ${scenario.mode}, install ${scenario.install}, ${hostKind === "own" ? "own host" : `shared host of lane ${lane}`})`)
  try {
    const bin = opencodeBinary(repoRoot)
    if (!fs.existsSync(bin)) {
      check("setup", false, `opencode binary not found at ${bin} (npm install, or set OPENCODE_BIN)`)
      return finish()
    }
    let host: SharedHost | undefined
    if (hostKind === "shared") {
      try {
        host = await sharedHost(lane, repoRoot, bin)
      } catch (err) {
        check("shared host started", false, (err as Error).message)
        return finish()
      }
    }
    fake = await startFakeLlm(steps, (r) => say(`  ${describeRequest(r, tag)}`), several ? "workspaces" : "servers")
    const llmUrl = fake.url
    if (Object.keys(scenario.web).length > 0) web = await startWebPages(scenario.web)
    for (let k = 1; k <= (scenario.workspaces?.length ?? 1); k += 1) {
      const view = workspaceView(scenario, k)
      let sandbox: Sandbox
      try {
        sandbox = createSandbox(view, {
          repoRoot,
          // Each workspace asks the fake on a channel of its own; several servers each ask on theirs.
          llmUrl: serverLlmUrl(llmUrl, several ? k : 1),
          ...(web === undefined ? {} : { webUrl: web.url }),
          llmUrlFor: (server) => serverLlmUrl(llmUrl, several ? k : server),
          hostVersion: opencodeVersion(repoRoot),
          ...(host ? { host } : {}),
        })
      } catch (err) {
        check("setup", false, (err as Error).message)
        return finish()
      }
      say(`  root ${sandbox.root}${several ? ` (workspace ${k})` : ""}`)
      const ctx: DriverContext = { scenario: view, sandbox, bin, say, check, ...(host ? { host } : {}) }
      units.push({ number: k, scenario: view, sandbox, driver: DRIVERS[scenario.mode](ctx), dbFile: path.join(sandbox.project, scenario.dbPath), seen: 0 })
    }
    const unitOf = (workspace: number | undefined): Unit => units[(workspace ?? 1) - 1] ?? (units[0] as Unit)
    // Placeholders of a step tagged with a workspace are that workspace's.
    steps.push(...scenario.model.map((step) => unitOf(several ? stepChannel(step) : 1).sandbox.expand(step)))
    let started = true
    for (const unit of units) if (started) started = await unit.driver.start()
    if (started) {
      for (const group of turnGroups(scenario.turns)) {
        for (const { turn, n } of group) fake.setTurn(n, turnChannel(turn))
        const [first] = group
        if (!first) continue
        const unit = unitOf(first.turn.workspace)
        await options.beforeTurn?.(first.n, unit.sandbox.project)
        const ok =
          group.length > 1
            ? await runGroup(group)
            : first.turn.restart
              ? await unit.driver.restart(first.turn, first.n)
              : await unit.driver.runTurn(first.turn, first.n)
        for (const touched of new Set(group.map(({ turn }) => unitOf(turn.workspace)))) {
          const now = await readForgeDb(touched.dbFile).catch((err: unknown) => {
            say(`  lifecycle store unreadable: ${String(err)}`)
            return undefined
          })
          for (const t of now?.transitions.slice(touched.seen) ?? []) say(describeTransition(t, touched, several))
          touched.seen = now?.transitions.length ?? touched.seen
        }
        const last = group.at(-1)?.n ?? first.n
        if (!ok) {
          if (last < scenario.turns.length) say(`  stopping: turns ${last + 1}..${scenario.turns.length} not run`)
          break
        }
      }
    }
    const evidence: { results: ScenarioResult["toolResults"]; session: SessionEvidence }[] = []
    for (const unit of units) {
      const results = attribute(await unit.driver.toolResults().catch(() => []), fake.requests).map((r) => ({ ...r, workspace: unit.number }))
      evidence.push({ results, session: (await unit.driver.evidence?.().catch(() => undefined)) ?? {} })
    }
    toolResults = evidence.flatMap((e) => e.results)
    await Promise.all(units.map((unit) => unit.driver.stop()))
    const logs = `${units[0]?.sandbox.logs() ?? ""}\n--- opencode stderr ---\n${units.map((unit) => unit.driver.stderr()).join("")}`
    diagnostics = logs.length > DIAGNOSTICS_LIMIT ? `…${logs.slice(-DIAGNOSTICS_LIMIT)}` : logs
    checks.push(...harnessChecks(fake, logs))
    for (const [i, unit] of units.entries()) {
      const db = await readForgeDb(unit.dbFile)
      actors.push(...db.actors.map((a) => ({ ...a, workspace: unit.number })))
      transitions.push(...db.transitions.map((t) => ({ ...t, workspace: unit.number })))
      // A workspace's own checks see the model requests of its own channel.
      const modelRequests = several ? fake.requests.filter((r) => r.workspace === unit.number) : fake.requests
      const own = { project: unit.sandbox.project, toolResults: evidence[i]?.results ?? [], db, logs, modelRequests, ...evidence[i]?.session }
      checks.push(...labelled(evaluateExpectations(unit.scenario.expect, own), unit, several))
      // With several workspaces the top-level checks are the whole run's: the log and the model requests.
      if (several && i === 0) checks.push(...evaluateExpectations(scenario.expect, { ...own, toolResults, modelRequests: fake.requests }))
    }
    return finish()
  } catch (err) {
    check("harness", false, (err as Error).stack ?? String(err))
    return finish()
  } finally {
    await Promise.all(units.map((unit) => unit.driver.stop().catch(() => undefined)))
    await fake?.close()
    await web?.close()
    for (const unit of units) releaseSandbox(unit.sandbox, options.keep)
  }

  /** Runs a `wait: false` group, its turns at the same time, with the fake model synchronising them (`startGroup`). */
  async function runGroup(group: readonly NumberedTurn[]): Promise<boolean> {
    const live = fake as FakeLlm
    live.startGroup(group.map(({ turn }) => turnChannel(turn)))
    try {
      if (several) return (await Promise.all(group.map(({ turn, n }) => units[(turn.workspace ?? 1) - 1]?.driver.runTurn(turn, n)))).every(Boolean)
      const driver = units[0]?.driver
      if (!driver?.runConcurrent) throw new Error("this mode cannot run turns at the same time")
      return await driver.runConcurrent(group)
    } finally {
      checks.push(groupCheck(group, live.endGroup(), several ? "workspace" : "server"))
    }
  }

  function finish(): ScenarioResult {
    const failed = checks.filter((c) => !c.ok)
    say("checks:")
    for (const c of checks) say(`  ${c.ok ? "ok  " : "FAIL"} ${c.label}${c.ok || !c.detail ? "" : ` — ${c.detail}`}`)
    const root = units[0]?.sandbox.root
    return {
      name,
      ...(file ? { file } : {}),
      passed: failed.length === 0,
      host: hostKind,
      passedCount: checks.length - failed.length,
      failedCount: failed.length,
      failures: failed.map((c) => (c.detail ? `${c.label}: ${c.detail}` : c.label)),
      checks,
      toolResults,
      actors,
      transitions,
      modelRequests: fake?.requests ?? [],
      ...(options.keep && root !== undefined ? { root, roots: units.map((unit) => unit.sandbox.root) } : {}),
      diagnostics,
    }
  }
}

/**
 * Runs a scenario (a file path, resolved from `options.cwd`, or a scenario object) against the real opencode.
 * Throws ScenarioFileError for an invalid scenario; every other problem is a failed check in the result.
 */
export async function runScenario(scenario: string | ScenarioInput, options: RunScenarioOptions = {}): Promise<ScenarioResult> {
  const loaded = typeof scenario === "string" ? loadScenarioFile(scenario, options.cwd) : { scenario: parseScenario(scenario), file: undefined }
  const run = (lane: number) => execute(loaded.scenario, loaded.file, options, lane)
  return options.exclusive === false ? run(0) : withLane(run)
}
