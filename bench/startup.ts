// What the plugin costs opencode at start-up, side by side in one run with the same scripted model: `opencode run`
// without the plugin (baseline), with it on an empty workspace, and with it on a workspace holding 1,000 live plans
// to restore. Per run: time from spawn to the session's first model request, the first `read` round trip, the first
// Forge tool call's round trip (`forge_read`), opencode's CPU time and peak RSS. opencode runs with the production
// timings: the background restore waits until no turn runs (or 5 s after start-up), as it does for a user.
// Run: npm run bench:startup [-- --rounds N] [-- --bundle]. Figures are printed, never asserted against timers.
import { existsSync } from "node:fs"
import path from "node:path"
import { PLAN_TOOL_IDS } from "../adapters/opencode/plan/plan.tools"
import { withAllLanes } from "../test/e2e/e2e.lanes"
import { opencodeBinary, opencodeVersion, REPO_ROOT } from "../test/e2e/sandbox"
import { formatTable, medianInterval } from "./bench.stats"
import { type RunSample, measureRun } from "./startup.run"
import { measureHookPath } from "./startup.hooks"
import { seedLiveRecords } from "./startup.workspace"
import { machineLine, roundsArg } from "./bench.machine"

const RECORDS = 1_000
const DEFAULT_ROUNDS = 10
const TARGET_PLUGIN_MS = 100
const TARGET_PLUGIN_MB = 40
const TARGET_RESTORE_MS = 150
const TARGET_READ_RATIO = 1.1
const TARGET_FIRST_CALL_MS = 1_000
/** A verdict is decided only by a median interval of this confidence. */
const CONFIDENCE = 0.95
/** MB here are 10⁶ bytes, as in the targets; VmHWM is in KiB. */
const MB_PER_KIB = 1024 / 1e6

type ConfigName = "baseline" | "empty" | "stored" | "records"
const CONFIGS: readonly { name: ConfigName; label: string }[] = [
  { name: "baseline", label: "baseline: opencode run, no plugin" },
  { name: "empty", label: "plugin, empty workspace" },
  { name: "stored", label: "plugin, workspace database, nothing live" },
  { name: "records", label: `plugin, ${RECORDS.toLocaleString("en-US")} live plans to restore` },
]

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
  if (name === "baseline" && run.tools.some((t) => (PLAN_TOOL_IDS as readonly string[]).includes(t)))
    wrong.push("baseline: the model was offered Forge's tools")
  if (name !== "baseline" && !offersForge) wrong.push(`${name}: the model was not offered Forge's plan tools (offered: ${run.tools.join(", ")})`)
  if (!run.toolCompleted) wrong.push(`${name}: the scripted read call did not complete`)
  if (!Number.isFinite(run.firstRequestCpuMs)) wrong.push(`${name}: no CPU reading when the first request arrived`)
  if (run.rssSamples === 0) wrong.push(`${name}: no VmHWM reading before opencode exited`)
  return wrong
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2)
  const rounds = roundsArg(argv, DEFAULT_ROUNDS)
  // --bundle: the built plugin (what the npm package installs) instead of the TypeScript sources the e2e tests load.
  const pluginPath = argv.includes("--bundle") ? "dist/server.js" : "src/server.ts"
  if (!existsSync(path.join(REPO_ROOT, pluginPath))) throw new Error(`${pluginPath} not found: run \`npm run build\` first`)
  if (process.platform !== "linux") throw new Error("the startup bench reads /proc/<pid>/status: Linux only")
  const bin = opencodeBinary(REPO_ROOT)
  const hostVersion = opencodeVersion(REPO_ROOT)
  const seeded = await seedLiveRecords(RECORDS)
  const stored = await seedLiveRecords(0)
  const samples: Record<ConfigName, RunSample[]> = { baseline: [], empty: [], stored: [], records: [] }
  const wrong: string[] = []
  try {
    console.log(`opencode start-up with and without Forge — opencode ${hostVersion}, ${machineLine()}`)
    console.log(`plugin: file://${pluginPath}; restore workspace: ${seeded.describe}; written through the plan service in ${seeded.seconds.toFixed(1)} s`)
    // One untimed run first: the 185 MB opencode binary and the plugin's sources come into the page cache.
    await withAllLanes(async () => void (await measureRun({ bin, repoRoot: REPO_ROOT, hostVersion, plugin: true, pluginPath })))
    for (let round = 0; round < rounds; round++) {
      // The order rotates every round, so no configuration always runs first (cold caches) or last.
      const order = CONFIGS.map((_, i) => CONFIGS[(i + round) % CONFIGS.length] as (typeof CONFIGS)[number])
      // Every lane for each round: the round's runs share one quiet moment, other e2e runs may go between rounds.
      await withAllLanes(async () => {
        for (const config of order) {
          const run = await measureRun({
            bin,
            repoRoot: REPO_ROOT,
            hostVersion,
            plugin: config.name !== "baseline",
            pluginPath,
            seed: config.name === "records" ? seeded.seed : config.name === "stored" ? stored.seed : undefined,
          })
          wrong.push(...checkRun(config.name, run))
          samples[config.name].push(run)
        }
      })
      const line = (pick: (s: RunSample) => number) => CONFIGS.map((c) => `${c.name} ${pick(samples[c.name].at(-1) as RunSample).toFixed(0)}`).join(", ")
      console.log(
        `round ${round + 1}/${rounds} (${order.map((c) => c.name).join(" → ")}): first request ms ${line((s) => s.firstRequestMs)}; read round trip ms ${line((s) => s.toolRoundTripMs)}`,
      )
    }
  } finally {
    seeded.remove()
    stored.remove()
  }

  const of = (pick: (s: RunSample) => number) => (name: ConfigName) => samples[name].map(pick)
  const first = of((s) => s.firstRequestMs)
  const tool = of((s) => s.toolRoundTripMs)
  const forge = of((s) => s.forgeRoundTripMs)
  const exit = of((s) => s.exitMs)
  const firstCpu = of((s) => s.firstRequestCpuMs)
  const cpu = of((s) => s.cpuMs)
  const rss = of((s) => s.peakRssKiB * MB_PER_KIB)
  /** The median per-round difference of a configuration against another, with the ratio of the medians. */
  const versus = (figure: (n: ConfigName) => number[], name: ConfigName, unit: string, digits: number, against: ConfigName = "baseline"): string =>
    name === "baseline"
      ? "—"
      : `${signed(pairedDelta(figure(name), figure(against)), digits)} ${unit} (${(median(figure(name)) / median(figure(against))).toFixed(2)}×)`
  // The restore's own cost: against a workspace whose database an earlier run already created, so the empty
  // workspace's one-time creation and migration of its database does not count in its favour.
  const restoreLabel = `${RECORDS.toLocaleString("en-US")} live plans vs nothing live`

  const wall: string[][] = [["configuration", "first request ms", "vs baseline", "read round trip ms", "vs baseline", "first forge_read ms", "exit ms"]]
  const work: string[][] = [["configuration", "CPU by first request ms", "vs baseline", "CPU in all ms", "vs baseline", "peak RSS MB", "vs baseline"]]
  for (const c of CONFIGS) {
    wall.push([
      c.label,
      median(first(c.name)).toFixed(0),
      versus(first, c.name, "ms", 0),
      median(tool(c.name)).toFixed(0),
      versus(tool, c.name, "ms", 0),
      c.name === "baseline" ? "—" : median(forge(c.name)).toFixed(0),
      median(exit(c.name)).toFixed(0),
    ])
    work.push([
      c.label,
      median(firstCpu(c.name)).toFixed(0),
      versus(firstCpu, c.name, "ms", 0),
      median(cpu(c.name)).toFixed(0),
      versus(cpu, c.name, "ms", 0),
      median(rss(c.name)).toFixed(1),
      versus(rss, c.name, "MB", 1),
    ])
  }
  wall.push([
    restoreLabel,
    "",
    versus(first, "records", "ms", 0, "stored"),
    "",
    versus(tool, "records", "ms", 0, "stored"),
    versus(forge, "records", "ms", 0, "stored"),
    "",
  ])
  work.push([
    restoreLabel,
    "",
    versus(firstCpu, "records", "ms", 0, "stored"),
    "",
    versus(cpu, "records", "ms", 0, "stored"),
    "",
    versus(rss, "records", "MB", 1, "stored"),
  ])
  console.log(`\n${rounds} round(s), medians; "vs baseline" is the median of the per-round differences (the ratio of the medians in brackets)`)
  console.log(`\nwall time, from spawn()\n${formatTable(wall)}`)
  console.log(`\nCPU time (user + system, /proc/<pid>/stat) and peak RSS (VmHWM) of the opencode process\n${formatTable(work)}`)

  /**
   * A target's verdict over per-round figures. Decided only when the median's 95 % interval lies wholly on one side of
   * the target: single runs of opencode vary more than the targets, so a median alone can fall either way by chance.
   */
  const verdict = (figures: number[], target: number, show: (v: number) => string): string[] => {
    const mid = median(figures)
    const interval = medianInterval(figures, CONFIDENCE)
    const side = mid <= target ? "within" : "past"
    const met =
      interval.confidence < CONFIDENCE
        ? `undecided (median ${side} the target): at least 6 rounds`
        : interval.high <= target
          ? "met"
          : interval.low > target
            ? "NOT MET"
            : `undecided (median ${side} the target): more rounds`
    return [show(mid), `${show(interval.low)} … ${show(interval.high)}`, `${show(Math.min(...figures))} … ${show(Math.max(...figures))}`, met]
  }
  const paired = (a: number[], b: number[], op: (x: number, y: number) => number) => a.map((v, i) => op(v, b[i] as number))
  const minus = (x: number, y: number) => x - y
  const over = (x: number, y: number) => x / y
  const ms = (v: number) => `${signed(v, 0)} ms`
  const ratio = (v: number) => `${v.toFixed(2)}×`
  const records = RECORDS.toLocaleString("en-US")
  console.log(
    `\n${formatTable([
      ["target (per round; the verdict over all rounds)", "median", "95 % interval of the median", "rounds", "met"],
      [
        `the plugin adds ≤ ${TARGET_PLUGIN_MS} ms before the first model request`,
        ...verdict(paired(first("empty"), first("baseline"), minus), TARGET_PLUGIN_MS, ms),
      ],
      [
        `the plugin adds ≤ ${TARGET_PLUGIN_MB} MB peak RSS`,
        ...verdict(paired(rss("empty"), rss("baseline"), minus), TARGET_PLUGIN_MB, (v) => `${signed(v, 1)} MB`),
      ],
      [
        `first read round trip ≤ ${TARGET_READ_RATIO}× baseline, empty workspace`,
        ...verdict(paired(tool("empty"), tool("baseline"), over), TARGET_READ_RATIO, ratio),
      ],
      [
        `first read round trip ≤ ${TARGET_READ_RATIO}× baseline, ${records} live plans`,
        ...verdict(paired(tool("records"), tool("baseline"), over), TARGET_READ_RATIO, ratio),
      ],
      [
        `first Forge call (forge_read) ≤ ${TARGET_FIRST_CALL_MS} ms, empty workspace`,
        ...verdict(forge("empty"), TARGET_FIRST_CALL_MS, (v) => `${v.toFixed(0)} ms`),
      ],
      [
        `first Forge call (forge_read) ≤ ${TARGET_FIRST_CALL_MS} ms, ${records} live plans`,
        ...verdict(forge("records"), TARGET_FIRST_CALL_MS, (v) => `${v.toFixed(0)} ms`),
      ],
      [
        `restoring ${records} live plans adds ≤ ${TARGET_RESTORE_MS} ms to the first Forge call`,
        ...verdict(paired(forge("records"), forge("stored"), minus), TARGET_RESTORE_MS, ms),
      ],
      [
        `restoring ${records} live plans adds ≤ ${TARGET_RESTORE_MS} ms of CPU in all`,
        ...verdict(paired(cpu("records"), cpu("stored"), minus), TARGET_RESTORE_MS, ms),
      ],
    ])}`,
  )
  const hookPath = await measureHookPath()
  console.log(
    `\nForge's own hooks on that read round trip, in-process (sources, Node): first pass ${hookPath.firstMs.toFixed(2)} ms, later passes ${hookPath.laterMs.toFixed(3)} ms (median); ` +
      "the rest of the plugin's share of the round trip is opencode's handling of a plugin and its tools",
  )
  const restoredLine = new RegExp(`restored ${RECORDS} live plan\\(s\\)`)
  const restoredBeforeExit = samples.records.filter((s) => restoredLine.test(s.logs)).length
  console.log(
    `\nthe plugin's "restored ${RECORDS} live plan(s)" reached opencode's log in ${restoredBeforeExit} of ${samples.records.length} run(s) ` +
      "(the first Forge call waits for the restore, so it ran in every run; opencode run exits right after the turn, and a log line still in flight is cut short)",
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
