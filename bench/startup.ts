// What the plugin costs opencode at start-up, side by side in one run with the same scripted model: `opencode run`
// without the plugin (baseline), with it on an empty workspace, and with it on a workspace holding 1,000 live plans
// to restore. Per run: time from spawn to the session's first model request, and opencode's peak RSS.
// Run: npm run bench:startup [-- --rounds N] [-- --bundle]. Figures are printed, never asserted against timers.
import { existsSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { PLAN_TOOL_IDS } from "../adapters/opencode/plan.tools"
import { withE2eLock } from "../test/e2e/e2e.lock"
import { opencodeBinary, opencodeVersion, REPO_ROOT } from "../test/e2e/sandbox"
import { formatTable } from "./bench.stats"
import { type RunSample, measureRun } from "./startup.run"
import { seedLiveRecords } from "./startup.workspace"

const RECORDS = 1_000
const DEFAULT_ROUNDS = 5
const TARGET_PLUGIN_MS = 100
const TARGET_PLUGIN_MB = 40
const TARGET_RESTORE_MS = 150
/** MB here are 10⁶ bytes, as in the targets; VmHWM is in KiB. */
const MB_PER_KIB = 1024 / 1e6

type ConfigName = "baseline" | "empty" | "records"
const CONFIGS: readonly { name: ConfigName; label: string }[] = [
  { name: "baseline", label: "baseline: opencode run, no plugin" },
  { name: "empty", label: "plugin, empty workspace" },
  { name: "records", label: `plugin, ${RECORDS.toLocaleString("en-US")} live plans to restore` },
]

function roundsArg(argv: readonly string[]): number {
  const i = argv.indexOf("--rounds")
  if (i < 0) return DEFAULT_ROUNDS
  const n = Number(argv[i + 1])
  if (!Number.isInteger(n) || n < 1) throw new Error(`--rounds needs a whole number ≥ 1, got ${JSON.stringify(argv[i + 1])}`)
  return n
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

/** Median of the per-round differences a − b: each round's runs share the machine's load of that moment. */
function pairedDelta(a: readonly number[], b: readonly number[]): number {
  return median(a.map((v, i) => v - (b[i] as number)))
}

const signed = (v: number, digits: number): string => `${v >= 0 ? "+" : "−"}${Math.abs(v).toFixed(digits)}`

/** What a run must show for its figures to mean anything; a miss is a wrong answer (exit 1), never a timing. */
function checkRun(name: ConfigName, run: RunSample): string[] {
  const wrong: string[] = []
  if (run.exitCode !== 0) wrong.push(`${name}: opencode exited with ${run.exitCode}\n${run.stderr.slice(-1_000)}`)
  const loadError = /^.*failed to load plugin.*$/m.exec(run.logs)
  if (loadError) wrong.push(`${name}: ${loadError[0]}`)
  const offersForge = PLAN_TOOL_IDS.every((id) => run.tools.includes(id))
  if (name === "baseline" && run.tools.some((t) => (PLAN_TOOL_IDS as readonly string[]).includes(t))) wrong.push("baseline: the model was offered Forge's tools")
  if (name !== "baseline" && !offersForge) wrong.push(`${name}: the model was not offered Forge's plan tools (offered: ${run.tools.join(", ")})`)
  if (!run.toolCompleted) wrong.push(`${name}: the scripted read call did not complete`)
  if (run.rssSamples === 0) wrong.push(`${name}: no VmHWM reading before opencode exited`)
  return wrong
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2)
  const rounds = roundsArg(argv)
  // --bundle: the built plugin (what the npm package installs) instead of the TypeScript sources the e2e tests load.
  const pluginPath = argv.includes("--bundle") ? "dist/server.js" : "src/server.ts"
  if (!existsSync(path.join(REPO_ROOT, pluginPath))) throw new Error(`${pluginPath} not found: run \`npm run build\` first`)
  if (process.platform !== "linux") throw new Error("the startup bench reads /proc/<pid>/status: Linux only")
  const bin = opencodeBinary(REPO_ROOT)
  const hostVersion = opencodeVersion(REPO_ROOT)
  const seeded = await seedLiveRecords(RECORDS)
  const samples: Record<ConfigName, RunSample[]> = { baseline: [], empty: [], records: [] }
  const wrong: string[] = []
  try {
    console.log(`opencode start-up with and without Forge — opencode ${hostVersion}, node ${process.version}, ${os.cpus()[0]?.model ?? "unknown cpu"}`)
    console.log(`plugin: file://${pluginPath}; restore workspace: ${seeded.describe}; written through the plan service in ${seeded.seconds.toFixed(1)} s`)
    // One untimed run first: the 185 MB opencode binary and the plugin's sources come into the page cache.
    await withE2eLock(async () => void (await measureRun({ bin, repoRoot: REPO_ROOT, hostVersion, plugin: true, pluginPath })))
    for (let round = 0; round < rounds; round++) {
      // The order rotates every round, so no configuration always runs first (cold caches) or last.
      const order = CONFIGS.map((_, i) => CONFIGS[(i + round) % CONFIGS.length]!)
      // One lock per round: the round's runs share one quiet moment, other e2e runs may go between rounds.
      await withE2eLock(async () => {
        for (const config of order) {
          const run = await measureRun({ bin, repoRoot: REPO_ROOT, hostVersion, plugin: config.name !== "baseline", pluginPath, seed: config.name === "records" ? seeded.seed : undefined })
          wrong.push(...checkRun(config.name, run))
          samples[config.name].push(run)
        }
      })
      const line = CONFIGS.map((c) => `${c.name} ${samples[c.name].at(-1)!.firstRequestMs.toFixed(0)} ms`).join(", ")
      console.log(`round ${round + 1}/${rounds} (${order.map((c) => c.name).join(" → ")}): first request ${line}`)
    }
  } finally {
    seeded.remove()
  }

  const first = (name: ConfigName) => samples[name].map((s) => s.firstRequestMs)
  const rss = (name: ConfigName) => samples[name].map((s) => s.peakRssKiB * MB_PER_KIB)
  const exit = (name: ConfigName) => samples[name].map((s) => s.exitMs)
  const tool = (name: ConfigName) => samples[name].map((s) => s.toolRoundTripMs)
  const base = { first: median(first("baseline")), rss: median(rss("baseline")) }
  const rows: string[][] = [["configuration", "first request ms", "vs baseline", "peak RSS MB", "vs baseline", "read round trip ms", "vs baseline", "exit ms"]]
  for (const c of CONFIGS) {
    const isBase = c.name === "baseline"
    rows.push([
      c.label,
      median(first(c.name)).toFixed(0),
      isBase ? "—" : `${signed(pairedDelta(first(c.name), first("baseline")), 0)} ms (${(median(first(c.name)) / base.first).toFixed(2)}×)`,
      median(rss(c.name)).toFixed(1),
      isBase ? "—" : `${signed(pairedDelta(rss(c.name), rss("baseline")), 1)} MB (${(median(rss(c.name)) / base.rss).toFixed(2)}×)`,
      median(tool(c.name)).toFixed(0),
      isBase ? "—" : `${signed(pairedDelta(tool(c.name), tool("baseline")), 0)} ms`,
      median(exit(c.name)).toFixed(0),
    ])
  }
  const restoreMs = pairedDelta(first("records"), first("empty"))
  const restoreMb = pairedDelta(rss("records"), rss("empty"))
  rows.push([`${RECORDS.toLocaleString("en-US")} live plans vs empty`, "", `${signed(restoreMs, 0)} ms`, "", `${signed(restoreMb, 1)} MB`, "", `${signed(pairedDelta(tool("records"), tool("empty")), 0)} ms`, ""])
  console.log(`\n${rounds} round(s), medians; "vs baseline" is the median of the per-round differences (and the ratio of the medians)`)
  console.log(formatTable(rows))

  const pluginMs = pairedDelta(first("empty"), first("baseline"))
  const pluginMb = pairedDelta(rss("empty"), rss("baseline"))
  const met = (ok: boolean): string => (ok ? "met" : "NOT MET")
  console.log(
    `\n${formatTable([
      ["target", "figure", "met"],
      [`the plugin adds < ${TARGET_PLUGIN_MS} ms before the first model request`, `${signed(pluginMs, 0)} ms`, met(pluginMs < TARGET_PLUGIN_MS)],
      [`the plugin adds < ${TARGET_PLUGIN_MB} MB peak RSS`, `${signed(pluginMb, 1)} MB`, met(pluginMb < TARGET_PLUGIN_MB)],
      [`restoring ${RECORDS.toLocaleString("en-US")} records adds < ${TARGET_RESTORE_MS} ms`, `${signed(restoreMs, 0)} ms`, met(restoreMs < TARGET_RESTORE_MS)],
    ])}`,
  )
  const restoredLine = new RegExp(`restored ${RECORDS} live plan\\(s\\)`)
  const restoredBeforeExit = samples.records.filter((s) => restoredLine.test(s.logs)).length
  console.log(
    `\nthe plugin's "restored ${RECORDS} live plan(s)" reached opencode's log in ${restoredBeforeExit} of ${samples.records.length} run(s) ` +
      "(opencode run exits right after the turn: a restore still running, or its log line still in flight, is cut short)",
  )
  if (wrong.length > 0) {
    console.error(`\nwrong answers:\n${wrong.join("\n")}`)
    process.exitCode = 1
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error))
  process.exitCode = 1
})
