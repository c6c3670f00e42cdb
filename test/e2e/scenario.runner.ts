// Runs one scenario end to end against the real opencode binary: sandbox, fake model, turns, then checks.
// Expectation failures are reported in the result, never thrown; only an invalid scenario throws
// (ScenarioFileError), because then there is nothing meaningful to run.
import fs from "node:fs"
import path from "node:path"
import { withLane } from "./e2e.lanes"
import { evaluateExpectations, type Check } from "./expectations"
import { startWebPages, type WebPages } from "./web-pages"
import { CLOSING_TEXT, EXHAUSTED_TEXT, serverLlmUrl, startFakeLlm, type FakeLlm, type ModelRequestRecord } from "./fake-llm"
import { readForgeDb, type ActorRow, type ForgeDbSnapshot, type TransitionRow } from "./forge-db"
import { preview, type Driver, type DriverContext, type NumberedTurn, type SessionEvidence, type ToolResult } from "./opencode.driver"
import { createRunModeDriver } from "./run-mode.driver"
import { loadScenarioFile, parseScenario } from "./scenario.loader"
import { type ModelStep, type Scenario, type ScenarioInput, scenarioHost, type Turn } from "./scenario.schema"
import { createSandbox, FAKE_MODEL_ID, opencodeBinary, opencodeVersion, REPO_ROOT, releaseSandbox, type Sandbox } from "./sandbox"
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
  toolResults: ToolResult[]
  actors: ActorRow[]
  transitions: TransitionRow[]
  modelRequests: ModelRequestRecord[]
  /** Where opencode ran: a host of the scenario's own, or a shared one. */
  host: "own" | "shared"
  /** The temp root, kept only with `keep: true`. */
  root?: string
  /** opencode stderr and log files (tail), for debugging a failure. */
  diagnostics: string
}

const DIAGNOSTICS_LIMIT = 200_000

/** `tagged`: the scenario runs several servers, so each line names the one that asked. */
function describeRequest(r: ModelRequestRecord, tagged: boolean): string {
  // A model other than the fake's default (a worker pinned to another one) is named on the line.
  const tag = `${r.model === FAKE_MODEL_ID ? "" : ` (${r.model})`}${tagged ? ` [server ${r.server}]` : ""}`
  if (r.kind === "title") return `model (title request)${tag} → text`
  if (r.kind === "closing") return `model (closing request of a concurrent turn)${tag} → text ${JSON.stringify(CLOSING_TEXT)}`
  if ("tools" in r.reply) return `model #${r.index}${tag} → ${r.reply.tools.map((t) => `tool ${t.tool} ${preview(t.args, 120)}`).join(", ")}`
  return `model #${r.index}${tag} → ${r.kind === "exhausted" ? "script exhausted, answered" : "text"} ${JSON.stringify(preview(r.reply.text, 100))}`
}

function harnessChecks(fake: FakeLlm, logs: string): Check[] {
  const checks: Check[] = []
  const exhausted = fake.requests.find((r) => r.kind === "exhausted")
  checks.push({
    label: "model script long enough",
    ok: !exhausted,
    detail: exhausted
      ? `model script exhausted at request ${exhausted.index} (turn ${exhausted.turn}); the fake answered ${JSON.stringify(EXHAUSTED_TEXT)}`
      : undefined,
  })
  const left = fake.remaining()
  checks.push({ label: "model script fully used", ok: left === 0, detail: `${left} step(s) never requested` })
  const loadError = /^.*failed to load plugin.*$/m.exec(logs)
  checks.push({ label: "plugin loaded", ok: !loadError, detail: preview(loadError?.[0] ?? "", 400) })
  return checks
}

/**
 * Each tool call's turn and server, from the model request that asked for it (its call id): turns that ran at the
 * same time are collected together, and only the fake knows which server asked. Unknown ids keep the driver's.
 */
function attribute(results: readonly ToolResult[], requests: readonly ModelRequestRecord[]): ToolResult[] {
  const asked = new Map<string, ModelRequestRecord>()
  for (const r of requests) for (const id of r.callIds) asked.set(id, r)
  return results.map((t) => {
    const r = t.callId === undefined ? undefined : asked.get(t.callId)
    return r ? { ...t, turn: r.turn, server: r.server } : t
  })
}

/** Runs a `wait: false` group with the fake model synchronising it (see `FakeLlm.startGroup`). */
async function runConcurrent(driver: Driver, fake: FakeLlm, group: readonly NumberedTurn[], check: DriverContext["check"]): Promise<boolean> {
  if (!driver.runConcurrent) throw new Error("this mode cannot run turns at the same time")
  fake.startGroup(group.map(({ turn }) => turn.server ?? 1))
  let ok: boolean
  try {
    ok = await driver.runConcurrent(group)
  } finally {
    const missing = fake.endGroup()
    const turns = group.map(({ n }) => n).join(", ")
    check(
      `turns ${turns}: every concurrent turn asked the model`,
      missing.length === 0,
      `the first model request of server ${missing.join(", ")} never came; the others were held until the wait gave up`,
    )
  }
  return ok
}

/** The turns in order, a `wait: false` turn grouped with the turns after it up to the first one that waits. */
function turnGroups(turns: readonly Turn[]): NumberedTurn[][] {
  const groups: NumberedTurn[][] = []
  let open: NumberedTurn[] = []
  for (const [i, turn] of turns.entries()) {
    open.push({ turn, n: i + 1 })
    if (turn.wait !== false) {
      groups.push(open)
      open = []
    }
  }
  if (open.length > 0) groups.push(open)
  return groups
}

function describeTransition(t: TransitionRow): string {
  return `  transition ${t.machine} ${t.instance}: ${t.from} --${t.event}--> ${t.to}`
}

async function execute(scenario: Scenario, file: string | undefined, options: RunScenarioOptions, lane: number): Promise<ScenarioResult> {
  const repoRoot = path.resolve(options.repoRoot ?? REPO_ROOT)
  const say = options.log ?? (() => {})
  const name = scenario.name ?? (file ? path.basename(file, ".json") : "scenario")
  const checks: Check[] = []
  const check = (label: string, ok: boolean, detail?: string) => checks.push(ok ? { label, ok } : { label, ok, detail })
  const steps: ModelStep[] = []
  let fake: FakeLlm | undefined
  let web: WebPages | undefined
  let sandbox: Sandbox | undefined
  let driver: Driver | undefined
  let toolResults: ToolResult[] = []
  let db: ForgeDbSnapshot = { exists: false, actors: [], transitions: [], watchdogLedger: [] }
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
    fake = await startFakeLlm(steps, (r) => say(`  ${describeRequest(r, scenario.servers > 1)}`))
    const llmUrl = fake.url
    if (Object.keys(scenario.web).length > 0) web = await startWebPages(scenario.web)
    try {
      sandbox = createSandbox(scenario, {
        repoRoot,
        llmUrl,
        ...(web === undefined ? {} : { webUrl: web.url }),
        llmUrlFor: (server) => serverLlmUrl(llmUrl, server),
        hostVersion: opencodeVersion(repoRoot),
        ...(host ? { host } : {}),
      })
    } catch (err) {
      check("setup", false, (err as Error).message)
      return finish()
    }
    steps.push(...sandbox.expand(scenario.model))
    say(`  root ${sandbox.root}`)
    const ctx: DriverContext = { scenario, sandbox, bin, say, check, ...(host ? { host } : {}) }
    driver = { run: createRunModeDriver, serve: createServeModeDriver, tui: createTuiModeDriver }[scenario.mode](ctx)
    const dbFile = path.join(sandbox.project, scenario.dbPath)
    let seen = 0
    if (await driver.start()) {
      for (const group of turnGroups(scenario.turns)) {
        for (const { turn, n } of group) fake.setTurn(n, turn.server ?? 1)
        const [first] = group
        if (!first) continue
        const ok =
          group.length > 1
            ? await runConcurrent(driver, fake, group, check)
            : first.turn.restart
              ? await driver.restart(first.turn, first.n)
              : await driver.runTurn(first.turn, first.n)
        const now = await readForgeDb(dbFile).catch((err: unknown) => {
          say(`  lifecycle store unreadable: ${String(err)}`)
          return undefined
        })
        for (const t of now?.transitions.slice(seen) ?? []) say(describeTransition(t))
        seen = now?.transitions.length ?? seen
        const last = group.at(-1)?.n ?? first.n
        if (!ok) {
          if (last < scenario.turns.length) say(`  stopping: turns ${last + 1}..${scenario.turns.length} not run`)
          break
        }
      }
    }
    toolResults = attribute(await driver.toolResults().catch(() => []), fake.requests)
    const evidence: SessionEvidence = (await driver.evidence?.().catch(() => undefined)) ?? {}
    await driver.stop()
    const logs = `${sandbox.logs()}\n--- opencode stderr ---\n${driver.stderr()}`
    diagnostics = logs.length > DIAGNOSTICS_LIMIT ? `…${logs.slice(-DIAGNOSTICS_LIMIT)}` : logs
    checks.push(...harnessChecks(fake, logs))
    db = await readForgeDb(dbFile)
    checks.push(...evaluateExpectations(scenario.expect, { project: sandbox.project, toolResults, db, logs, modelRequests: fake.requests, ...evidence }))
    return finish()
  } catch (err) {
    check("harness", false, (err as Error).stack ?? String(err))
    return finish()
  } finally {
    await driver?.stop().catch(() => undefined)
    await fake?.close()
    await web?.close()
    if (sandbox) releaseSandbox(sandbox, options.keep)
  }

  function finish(): ScenarioResult {
    const failed = checks.filter((c) => !c.ok)
    say("checks:")
    for (const c of checks) say(`  ${c.ok ? "ok  " : "FAIL"} ${c.label}${c.ok || !c.detail ? "" : ` — ${c.detail}`}`)
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
      actors: db.actors,
      transitions: db.transitions,
      modelRequests: fake?.requests ?? [],
      ...(options.keep && sandbox ? { root: sandbox.root } : {}),
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
