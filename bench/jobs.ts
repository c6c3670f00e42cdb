// Times the job supervisor (forge_shell / forge_jobs) against plain baselines, side by side in one run: output
// capture of 1 GiB, exit-to-return latency, killing a 200-process tree, and host memory during output floods.
// Run: npm run bench:jobs. Figures are printed, never asserted against timers; the run fails only on wrong answers.
import { mkdtempSync, rmSync, statfsSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { formatTable } from "./bench.stats"
import { type MemoryRun, flushDisk, forgeFlood, forgeMemory, measureThroughput, megabytesPerSecond, naiveMemory, rawFlood } from "./jobs.capture"
import { type BenchJobs, MiB, createBenchJobs, median, percentile } from "./jobs.harness"
import { measureExitLatency } from "./jobs.latency"
import { type KillMethod, type KillRun, TREE_SIZE, adapterKillNoGrace, buildTree, settle, supervisorKill, timeKill, treeKillAlone } from "./jobs.tree"

const GiB = 1024 * MiB
const FLOOD_BYTES = GiB
const SMALL_FLOOD_BYTES = 100 * MiB
const THROUGHPUT_ROUNDS = 7
const SHORT_CALLS = 200
const SHORT_COMMAND = "exit 0"
const KILL_ROUNDS = 3
const GRACE_BASELINE_MS = 500
// At most one 1 GiB file exists at a time; the rest is headroom for everything else on the disk.
const REQUIRED_FREE_BYTES = 3 * GiB

const TARGET_CAPTURE_RATIO = 0.9
const TARGET_LATENCY_P50_MS = 20
const TARGET_KILL_MS = 200
// "Flat": ten times the output may add less than this to the host's peak RSS (the naive host adds about 900 MiB).
const TARGET_FLAT_GROWTH_BYTES = 32 * MiB

const mark = (ok: boolean): string => (ok ? "met" : "NO")
const fixed = (n: number, digits: number): string => n.toFixed(digits)
const mib = (bytes: number): string => (bytes / MiB).toFixed(1)
const sizeName = (bytes: number): string => (bytes >= GiB ? `${bytes / GiB} GiB` : `${bytes / MiB} MiB`)

function checkFreeSpace(dir: string): number {
  const stats = statfsSync(dir)
  const free = stats.bavail * stats.bsize
  if (free < REQUIRED_FREE_BYTES) {
    throw new Error(`${dir} has ${mib(free)} MiB free; the jobs bench writes 1 GiB files there and needs at least ${mib(REQUIRED_FREE_BYTES)} MiB`)
  }
  return free
}

interface KillRow {
  label: string
  ignoring: boolean
  method: KillMethod
}

interface KillSummary {
  label: string
  runs: KillRun[]
  /** Median time to verified death over the rounds where everything died; null when a round left survivors. */
  medianMs: number | null
  maxSurvivors: number
  medianCallMs: number
}

async function measureKills(jobs: BenchJobs, rows: readonly KillRow[], problems: string[]): Promise<{ summaries: KillSummary[]; unsettled: number }> {
  let unsettled = 0
  const summaries: KillSummary[] = rows.map((row) => ({ label: row.label, runs: [], medianMs: null, maxSurvivors: 0, medianCallMs: 0 }))
  // Round by round, so every method meets the machine in the same state.
  for (let round = 0; round < KILL_ROUNDS; round++) {
    for (const [i, row] of rows.entries()) {
      const tree = await buildTree(jobs, row.ignoring, problems)
      if (tree === undefined) continue
      const run = await timeKill(tree, row.method)
      if (!(await settle(tree))) unsettled++
      if (run.reportedSurvivors !== undefined && run.reportedSurvivors !== run.survivors) {
        problems.push(`${row.label}: the kill reported ${run.reportedSurvivors} survivor(s), the bench counted ${run.survivors}`)
      }
      summaries[i]?.runs.push(run)
    }
  }
  for (const s of summaries) {
    if (s.runs.length === 0) continue
    s.maxSurvivors = Math.max(...s.runs.map((r) => r.survivors))
    s.medianCallMs = median(s.runs.map((r) => r.callMs))
    s.medianMs = s.runs.every((r) => r.ms !== null) ? median(s.runs.map((r) => r.ms as number)) : null
  }
  return { summaries, unsettled }
}

async function main(): Promise<void> {
  const started = process.hrtime.bigint()
  const free = checkFreeSpace(os.tmpdir())
  const workspace = mkdtempSync(path.join(os.tmpdir(), "forge-bench-jobs-"))
  const problems: string[] = []
  let jobs: BenchJobs | undefined
  try {
    jobs = await createBenchJobs(workspace)
    // Warm-up: the fence watcher, the shell lookup and the JIT are paid for before anything is timed.
    for (let i = 0; i < 3; i++) await forgeFlood(jobs, MiB, problems)
    await rawFlood(workspace, MiB, problems)
    await measureExitLatency(jobs, SHORT_COMMAND, 20, problems)

    const capture = await measureThroughput(jobs, workspace, FLOOD_BYTES, THROUGHPUT_ROUNDS, problems)
    const latency = await measureExitLatency(jobs, SHORT_COMMAND, SHORT_CALLS, problems)
    const { summaries: kills, unsettled } = await measureKills(
      jobs,
      [
        { label: "forge_jobs kill, mixed tree (production grace)", ignoring: true, method: supervisorKill(jobs) },
        { label: "forge_jobs kill, tree honouring SIGTERM", ignoring: false, method: supervisorKill(jobs) },
        { label: "killJobTree, no grace (SIGKILL), mixed tree", ignoring: true, method: adapterKillNoGrace },
        { label: "baseline: tree-kill SIGTERM, mixed tree", ignoring: true, method: treeKillAlone("SIGTERM") },
        { label: "baseline: tree-kill SIGKILL, mixed tree", ignoring: true, method: treeKillAlone("SIGKILL") },
      ],
      problems,
    )
    // Memory last: the naive host's buffers would otherwise inflate the host for everything after them.
    const memory: { forge: MemoryRun[]; naive: MemoryRun[] } = { forge: [], naive: [] }
    for (const bytes of [SMALL_FLOOD_BYTES, FLOOD_BYTES]) {
      flushDisk(workspace)
      memory.forge.push(await forgeMemory(jobs, bytes, problems))
    }
    for (const bytes of [SMALL_FLOOD_BYTES, FLOOD_BYTES]) memory.naive.push(await naiveMemory(workspace, bytes, problems))

    const forgeMBs = megabytesPerSecond(FLOOD_BYTES, median(capture.forgeMs))
    const rawMBs = megabytesPerSecond(FLOOD_BYTES, median(capture.rawMs))
    const captureRatio = forgeMBs / rawMBs
    const lat50 = percentile(latency.exitToReturnMs, 0.5)
    const lat99 = percentile(latency.exitToReturnMs, 0.99)
    const [mixedKill, honourKill, noGraceKill, tkTerm, tkKill] = kills as [KillSummary, KillSummary, KillSummary, KillSummary, KillSummary]
    const [forgeSmall, forgeBig] = memory.forge as [MemoryRun, MemoryRun]
    const [naiveSmall, naiveBig] = memory.naive as [MemoryRun, MemoryRun]
    const forgeGrowth = forgeBig.peak - forgeSmall.peak
    const naiveGrowth = naiveBig.peak - naiveSmall.peak

    const cpu = os.cpus()[0]?.model ?? "unknown cpu"
    console.log(`job supervisor (forge_shell / forge_jobs) — node ${process.version}, ${os.cpus().length} × ${cpu}`)
    console.log(`temp folder ${workspace} on a disk with ${(free / GiB).toFixed(1)} GiB free; every output file is deleted right after its run\n`)

    const range = (ms: number[]): string =>
      `${fixed(megabytesPerSecond(FLOOD_BYTES, Math.max(...ms)), 0)}–${fixed(megabytesPerSecond(FLOOD_BYTES, Math.min(...ms)), 0)}`
    console.log(`1. output capture of ${sizeName(FLOOD_BYTES)} (${writerLabel()}), ${THROUGHPUT_ROUNDS} rounds, order alternating, disk synced before each`)
    console.log(
      formatTable([
        ["writer", "median s", "MB/s (median)", "MB/s (range)"],
        ["forge_shell (foreground, stdout → job log)", fixed(median(capture.forgeMs) / 1000, 2), fixed(forgeMBs, 0), range(capture.forgeMs)],
        ["baseline: sh -c '… > file', spawned directly", fixed(median(capture.rawMs) / 1000, 2), fixed(rawMBs, 0), range(capture.rawMs)],
        ["forge / baseline", "", `${fixed(captureRatio, 2)}×`, ""],
      ]),
    )

    console.log(`\n2. process exit → run() returns, ${SHORT_CALLS} × forge_shell "${SHORT_COMMAND}" (foreground)`)
    console.log(
      formatTable([
        ["path", "p50 ms", "p99 ms", "max ms"],
        ["forge_shell (exit report → result text)", fixed(lat50, 2), fixed(lat99, 2), fixed(Math.max(...latency.exitToReturnMs), 2)],
        [
          `baseline: fixed ${GRACE_BASELINE_MS} ms grace after exit (computed)`,
          fixed(GRACE_BASELINE_MS, 2),
          fixed(GRACE_BASELINE_MS, 2),
          fixed(GRACE_BASELINE_MS, 2),
        ],
        ["baseline / forge", `${fixed(GRACE_BASELINE_MS / lat50, 0)}×`, `${fixed(GRACE_BASELINE_MS / lat99, 0)}×`, ""],
      ]),
    )
    console.log(
      `   whole call (run() called → returned): p50 ${fixed(percentile(latency.wholeCallMs, 0.5), 2)} ms, p99 ${fixed(percentile(latency.wholeCallMs, 0.99), 2)} ms; ` +
        `by the exit report's own \`at\` (whole ms): p50 ${percentile(latency.exitAtToReturnMs, 0.5)} ms, p99 ${percentile(latency.exitAtToReturnMs, 0.99)} ms`,
    )

    console.log(`\n3. killing a ${TREE_SIZE}-process tree (40 children × 4 grandchildren; mixed: 50 ignore SIGTERM; 8 setsid escapees), ${KILL_ROUNDS} rounds`)
    const killCell = (s: KillSummary): string => (s.medianMs === null ? "never" : fixed(s.medianMs, 1))
    console.log(
      formatTable([
        ["method", "ms to verified death (median)", "call returned ms", "survivors (worst)"],
        ...kills.map((s) => [s.label, killCell(s), fixed(s.medianCallMs, 1), String(s.maxSurvivors)]),
        [
          "tree-kill SIGKILL / killJobTree no grace",
          ratioCell(tkKill.medianMs, noGraceKill.medianMs),
          ratioCell(tkKill.medianCallMs, noGraceKill.medianCallMs),
          "",
        ],
        [
          "tree-kill SIGKILL / forge_jobs kill (honouring)",
          ratioCell(tkKill.medianMs, honourKill.medianMs),
          ratioCell(tkKill.medianCallMs, honourKill.medianCallMs),
          "",
        ],
      ]),
    )
    console.log(`   "never": some process was still alive 1000 ms after the kill call returned; those count as survivors (and are then killed).`)
    console.log(`   Between kills the bench waits until the killed tree is reaped and tree-kill's \`ps\` walkers are done.`)
    if (unsettled > 0) console.log(`   ${unsettled} kill(s) left processes unreaped after 3 s (the system's init reaps orphans slowly); later scans saw them.`)

    console.log(`\n4. host peak RSS increase while a job floods output (sampled every 10 ms)`)
    const memRow = (label: string, run: MemoryRun): string[] => [label, sizeName(run.bytes), mib(run.peak), fixed(run.ms / 1000, 2), String(run.samples)]
    console.log(
      formatTable([
        ["host", "output", "peak RSS + MiB", "s", "samples"],
        memRow("forge_shell (stdout → job log)", forgeSmall),
        memRow("forge_shell (stdout → job log)", forgeBig),
        memRow("baseline: naive pipe into Buffer[]", naiveSmall),
        memRow("baseline: naive pipe into Buffer[]", naiveBig),
      ]),
    )
    console.log(
      `   growth from ${sizeName(SMALL_FLOOD_BYTES)} to ${sizeName(FLOOD_BYTES)} of output: forge ${mib(forgeGrowth)} MiB, naive ${mib(naiveGrowth)} MiB`,
    )

    const killFigure = (s: KillSummary): string => `${s.medianMs === null ? "never all dead" : `${fixed(s.medianMs, 1)} ms`}, ${s.maxSurvivors} survivors`
    const killMet = (s: KillSummary): boolean => s.medianMs !== null && s.medianMs < TARGET_KILL_MS && s.maxSurvivors === 0
    console.log("\ntargets")
    console.log(
      formatTable([
        ["target", "figure", "met"],
        [`capture ≥ ${TARGET_CAPTURE_RATIO} of raw throughput`, `${fixed(captureRatio, 2)}×`, mark(captureRatio >= TARGET_CAPTURE_RATIO)],
        [`exit → return p50 < ${TARGET_LATENCY_P50_MS} ms`, `${fixed(lat50, 2)} ms`, mark(lat50 < TARGET_LATENCY_P50_MS)],
        [`kill < ${TARGET_KILL_MS} ms, 0 survivors: forge_jobs kill, mixed tree`, killFigure(mixedKill), mark(killMet(mixedKill))],
        [`kill < ${TARGET_KILL_MS} ms, 0 survivors: forge_jobs kill, honouring tree`, killFigure(honourKill), mark(killMet(honourKill))],
        [`kill < ${TARGET_KILL_MS} ms, 0 survivors: killJobTree, no grace`, killFigure(noGraceKill), mark(killMet(noGraceKill))],
        [`memory flat: 10× the output adds < ${mib(TARGET_FLAT_GROWTH_BYTES)} MiB`, `+${mib(forgeGrowth)} MiB`, mark(forgeGrowth < TARGET_FLAT_GROWTH_BYTES)],
      ]),
    )
    console.log(`\n(tree-kill SIGTERM, mixed tree: ${killFigure(tkTerm)}.)`)
    console.log(
      `${jobs.journaled()} job transitions were committed to the workspace database along the way; ` +
        `whole run ${fixed(Number(process.hrtime.bigint() - started) / 1e9, 0)} s.`,
    )
    if (jobs.errors.length > 0) console.log(`\nthe plugin logged:\n${jobs.errors.join("\n")}`)
    if (problems.length > 0) {
      console.error(`\nwrong answers:\n${problems.join("\n")}`)
      process.exitCode = 1
    }
  } finally {
    await jobs?.close()
    rmSync(workspace, { recursive: true, force: true })
  }
}

function writerLabel(): string {
  return `head -c ${FLOOD_BYTES} /dev/zero`
}

function ratioCell(baseline: number | null, forge: number | null): string {
  return baseline === null || forge === null || forge === 0 ? "–" : `${(baseline / forge).toFixed(1)}×`
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error))
  process.exitCode = 1
})
