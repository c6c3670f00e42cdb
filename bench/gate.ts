// Times the draft write-ban gate (`tool.execute.before`) against a folder-scanning baseline, side by side in one run,
// over the same stream of tool calls in a workspace holding 1,000 plan documents and 50 live sessions.
// Run: npm run bench. Figures are printed, never asserted against timers.

import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import type { Hooks, PluginInput } from "@opencode-ai/plugin"
import type { Event } from "@opencode-ai/sdk"
import { createForgeHooks } from "../adapters/opencode/forge.hooks"
import { isWriteBannedTool } from "../machines/plan/plan.gates"
import { PLAN_DIR } from "../services/plan/plan.paths"
import type { Logger } from "../services/lifecycle/lifecycle.ports"
import { type ComposedRuntime, createForgeRuntime } from "../src/runtime"
import { type TimedRun, formatMicros, formatTable, percentileMicros, timeCalls } from "./bench.stats"
import { createFolderScanGate } from "./gate.baseline"
import { openForeignWriter } from "./gate.foreign"
import { type GateInput, STREAM_TOOLS, buildCallStream } from "./gate.stream"
import { populateWorkspace } from "./gate.workspace"
import { defaultForgeOptions } from "../services/config/forge.options"
import { createHostJobs } from "../src/job/job.lazy"
import { ready } from "../adapters/opencode/lazy"
import { forgeFragments, handlesOf } from "../src/fragments"
import { machineLine } from "./bench.machine"

const PLAN_FILES = 1_000
const SESSIONS = 50
const FORGE_CALLS = 20_000
const FORGE_WARM_UP = 2_000
const BASELINE_CALLS = 300
const BASELINE_WARM_UP = 20
/** Calls timed right after another connection's write (each write is a real commit, so fewer of them). */
const FOREIGN_CALLS = 2_000
const TARGET_RATIO = 100
const TARGET_FORGE_P99_US = 100

/** Keeps what the plugin logs; errors are shown after the figures. */
function quietLogger(): Logger & { errors: string[] } {
  const errors: string[] = []
  const ignore = (): void => undefined
  return { errors, info: ignore, warn: (m) => void errors.push(`warn: ${m}`), error: (m) => void errors.push(`error: ${m}`) }
}

/** The hook only asks the host for parents of sessions it has not seen; every bench session is taught first. */
function unreachableClient(): { client: PluginInput["client"]; calls: () => number } {
  let calls = 0
  const session = {
    get: () => {
      calls++
      throw new Error("the bench client was asked for a session: the hook did not know a bench session")
    },
  }
  return { client: { session } as unknown as PluginInput["client"], calls: () => calls }
}

function sessionCreated(sessionID: string): Event {
  return { type: "session.created", properties: { sessionID, info: { id: sessionID, parentID: undefined } } } as unknown as Event
}

function summary(run: TimedRun): { p50: number; p99: number; refused: number } {
  return { p50: percentileMicros(run.samples, 0.5), p99: percentileMicros(run.samples, 0.99), refused: run.refused.reduce((n, r) => n + r, 0) }
}

/** Both gates must decide every shared call alike, and Forge must refuse exactly the write tools of draft sessions. */
function checkDecisions(stream: readonly GateInput[], forge: TimedRun, baseline: TimedRun, drafts: ReadonlySet<string>): void {
  for (let i = 0; i < forge.refused.length; i++) {
    const call = stream[i] as GateInput
    const expected = drafts.has(call.sessionID) && isWriteBannedTool(call.tool) ? 1 : 0
    if (forge.refused[i] !== expected) throw new Error(`forge decided call ${i} (${call.tool} in ${call.sessionID}) wrongly: refused=${forge.refused[i]}`)
    if (i < baseline.refused.length && baseline.refused[i] !== expected) {
      throw new Error(`the baseline decided call ${i} (${call.tool} in ${call.sessionID}) wrongly: refused=${baseline.refused[i]}`)
    }
  }
}

async function main(): Promise<void> {
  const workspace = mkdtempSync(path.join(os.tmpdir(), "forge-bench-gate-"))
  const log = quietLogger()
  const stub = unreachableClient()
  let now = Date.parse("2026-11-30T03:00:00.000Z")
  // While the workspace is set up, each reading moves the clock a second on, so every plan has its own `created` and
  // the newest is well defined; while calls are timed, it runs at the real pace.
  let realFrom: number | undefined
  const clock = {
    now: () => {
      if (realFrom !== undefined) return now + (performance.now() - realFrom)
      now += 1_000
      return now
    },
  }
  let opened: Promise<ComposedRuntime> | undefined
  let openedRuntime: ComposedRuntime | undefined
  // The gate bench starts no job: nothing needs recording.
  const jobs = createHostJobs({ client: stub.client, log, clock, repository: async () => undefined })
  const hooks: Hooks = createForgeHooks({
    client: stub.client,
    log,
    options: defaultForgeOptions,
    openRuntime: () => (opened = createForgeRuntime({ workspace, clock, log }).then((rt) => (openedRuntime = rt))),
    fragments: forgeFragments(
      handlesOf({
        job: ready(jobs),
        plan: {
          get: async () => {
            if (opened === undefined) throw new Error("the plan harness was asked for before the runtime opened")
            return (await opened).planHarness
          },
          current: () => openedRuntime?.planHarness,
        },
        watchdog: ready(undefined),
      }),
      { workspace, shellFamily: jobs.shellFamily, repository: async () => undefined },
    ),
  })
  try {
    await hooks.config?.({})
    if (opened === undefined) throw new Error("config({}) did not open the runtime")
    const runtime = await opened

    const setupStart = process.hrtime.bigint()
    const populated = await populateWorkspace(runtime.plans, { planFiles: PLAN_FILES, sessions: SESSIONS })
    const setupSeconds = Number(process.hrtime.bigint() - setupStart) / 1e9
    const files = readdirSync(path.join(workspace, PLAN_DIR)).filter((n) => n.endsWith(".md")).length
    if (files !== PLAN_FILES) throw new Error(`expected ${PLAN_FILES} plan files, found ${files}`)
    for (const session of populated.sessions) await hooks.event?.({ event: sessionCreated(session) })
    realFrom = performance.now()

    const before = hooks["tool.execute.before"]
    if (before === undefined) throw new Error("the plugin has no tool.execute.before hook")
    const forgeGate = (input: GateInput): Promise<void> => before(input, { args: {} })
    const baselineGate = createFolderScanGate(workspace)

    const stream = buildCallStream(populated.sessions, FORGE_CALLS)
    const warmUp = buildCallStream(populated.sessions, FORGE_WARM_UP, 7)
    const forge = await timeCalls(forgeGate, stream, warmUp)
    const baseline = await timeCalls(baselineGate, stream.slice(0, BASELINE_CALLS), warmUp.slice(0, BASELINE_WARM_UP))
    // Last: the foreign writes leave newer revisions behind, which the runs above must not see.
    const foreignWriter = await openForeignWriter(workspace)
    const foreignStream = stream.slice(0, FOREIGN_CALLS)
    const foreign = await timeCalls(forgeGate, foreignStream, [], (i) => foreignWriter.write(i)).finally(() => foreignWriter.close())
    checkDecisions(stream, forge, baseline, populated.draftSessions)
    checkDecisions(foreignStream, foreign, baseline, populated.draftSessions)
    if (stub.calls() > 0) throw new Error(`the hook asked the client for ${stub.calls()} session(s)`)

    const f = summary(forge)
    const b = summary(baseline)
    const x = summary(foreign)
    const ratio50 = b.p50 / f.p50
    const ratio99 = b.p99 / f.p99
    const c = populated.counts
    const mark = (ok: boolean): string => (ok ? "yes" : "NO")
    console.log(`draft write-ban gate (tool.execute.before) — ${machineLine()}`)
    console.log(
      `workspace: ${files} plan files (${c.draft} draft, ${c.approved} approved, ${c.done} done, ${c.abandoned} abandoned, ${c.superseded} superseded), ` +
        `${populated.sessions.length} live sessions; set up through the plan service in ${setupSeconds.toFixed(1)} s`,
    )
    console.log(`stream: ${STREAM_TOOLS.join(", ")} across the sessions; refusals are thrown and counted in the call's time\n`)
    console.log(
      formatTable([
        ["gate", "calls", "refused", "p50 µs", "p99 µs"],
        ["forge (registry + can())", String(FORGE_CALLS), String(f.refused), formatMicros(f.p50), formatMicros(f.p99)],
        ["forge, right after another process's write", String(FOREIGN_CALLS), String(x.refused), formatMicros(x.p50), formatMicros(x.p99)],
        ["baseline (folder scan)", String(BASELINE_CALLS), String(b.refused), formatMicros(b.p50), formatMicros(b.p99)],
        ["baseline / forge", "", "", `${ratio50.toFixed(0)}×`, `${ratio99.toFixed(0)}×`],
        ["baseline / forge after a foreign write", "", "", `${(b.p50 / x.p50).toFixed(0)}×`, `${(b.p99 / x.p99).toFixed(0)}×`],
      ]),
    )
    console.log("")
    console.log(`target: forge ≥ ${TARGET_RATIO}× faster than the baseline at p50 and p99 … ${mark(ratio50 >= TARGET_RATIO && ratio99 >= TARGET_RATIO)}`)
    console.log(`target: forge p99 < ${TARGET_FORGE_P99_US} µs … ${mark(f.p99 < TARGET_FORGE_P99_US)} (${formatMicros(f.p99)} µs)`)
    console.log(
      `after a foreign write (a second connection commits a new revision of one live plan row before each call): ` +
        `p50 ${formatMicros(x.p50)} µs, p99 ${formatMicros(x.p99)} µs — the gate notices, reads the changed row and takes it in`,
    )
    console.log(
      `decisions: forge refused exactly the write tools of draft sessions on all ${FORGE_CALLS} calls, the baseline ` +
        `decided its ${BASELINE_CALLS} alike; the host client was never asked`,
    )
    if (log.errors.length > 0) console.log(`\nthe plugin logged:\n${log.errors.join("\n")}`)
  } finally {
    await hooks.dispose?.()
    rmSync(workspace, { recursive: true, force: true })
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error))
  process.exitCode = 1
})
