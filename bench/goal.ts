// Times the goal harness side by side with plain baselines in one run: the continuation loop's cycle (sessionIdle →
// the brief handed to the prompter, the 2 s debounce skipped) against the same cycle's bare I/O, and the goal check
// runner against spawning the command or reading the file directly.
// Run: npm run bench:goal. Figures are printed, never asserted against timers; the run fails only on wrong answers.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { GOAL_DEBOUNCE_MS } from "../machines/goal/goal.gates"
import { formatMicros, formatTable, percentileMicros } from "./bench.stats"
import { type Contender, commandContenders, containsContenders, interleave, leftovers, processCount } from "./goal.checks"
import { type BareSample, type CycleSample, GOAL_MAX_TURNS, type LoopBench, createLoopBench } from "./goal.loop"
import { machineLine } from "./bench.machine"

const SESSIONS = 20
/** Goals driven from their second turn to their last (the first turn of every goal is the warm-up). */
const DRIVEN_GOALS = 4
const COMMAND_ROUNDS = 100
const COMMAND_WARM_UP = 3
const CONTAINS_ROUNDS = 2_000
const CONTAINS_WARM_UP = 100
const TARGET_BRIEF_P50_MS = 20
const TURN_BUCKETS: readonly [number, number][] = [
  [2, 50],
  [51, 100],
  [101, 150],
  [151, 200],
]

const mark = (ok: boolean): string => (ok ? "met" : "NO")
const ms = (ns: Float64Array, p: number): number => percentileMicros(ns, p) / 1000
const fixedMs = (value: number): string => (value < 10 ? value.toFixed(2) : value.toFixed(1))
const column = <T>(rows: readonly T[], pick: (row: T) => number): Float64Array => Float64Array.from(rows, pick)
const ratio = (a: number, b: number): string => `${(a / b).toFixed(1)}×`

/**
 * One cycle of each goal untimed (its first turn), then goal after goal driven to its last turn, each cycle followed
 * by its baseline; last, one untimed cycle that rotates the first goal, whose turns ran out, for a new one.
 */
async function driveLoop(bench: LoopBench): Promise<{ cycles: CycleSample[]; bare: BareSample[] }> {
  for (const session of bench.sessions) {
    await bench.cycle(session)
    await bench.bare(session)
  }
  const cycles: CycleSample[] = []
  const bare: BareSample[] = []
  for (let g = 0; g < DRIVEN_GOALS; g++) {
    const session = bench.sessions[g % bench.sessions.length] as string
    for (let turn = 2; turn <= GOAL_MAX_TURNS; turn++) {
      cycles.push(await bench.cycle(session))
      bare.push(await bench.bare(session))
    }
  }
  // The first goal's turns ran out: one more idle of its session discards it and arms the next goal (untimed).
  const first = bench.sessions[0] as string
  const rotated = await bench.cycle(first)
  if (rotated.turn !== 1) bench.problems.push(`${first}: after its goal's turns ran out, the next cycle opened turn ${rotated.turn}, not a new goal's first`)
  return { cycles, bare }
}

function printLoop(cycles: CycleSample[], bare: BareSample[], goals: number): { briefP50: number } {
  const idle = column(cycles, (c) => c.idle)
  const brief = column(cycles, (c) => c.brief)
  const committed = column(cycles, (c) => c.committed)
  const bare1 = column(bare, (b) => b.commit + b.write)
  const bare2 = column(bare, (b) => b.commit + b.read + b.write + b.secondCommit)
  const row = (label: string, ns: Float64Array): string[] => [label, fixedMs(ms(ns, 0.5)), fixedMs(ms(ns, 0.99))]
  const delays = cycles.map((c) => c.delayMs)
  console.log(
    `1. continuation cycle, ${cycles.length} cycles: ${DRIVEN_GOALS} goals each driven from turn 2 to ${GOAL_MAX_TURNS} (${SESSIONS} goals armed in ` +
      `${SESSIONS} sessions, ${goals} written in all); every cycle followed by its baseline on the same goal`,
  )
  console.log(
    formatTable([
      ["from loop.sessionIdle(session) to …", "p50 ms", "p99 ms"],
      row("forge: sessionIdle resolved (deadline committed, timer asked)", idle),
      row("forge: brief handed to the prompter (debounce skipped)", brief),
      row("forge: loop.due committed (document and records written)", committed),
      row("baseline 1: one snapshot commit + one atomic document write", bare1),
      row("baseline 2: commit + document read + atomic write + commit", bare2),
      ["brief / baseline 1", ratio(ms(brief, 0.5), ms(bare1, 0.5)), ratio(ms(brief, 0.99), ms(bare1, 0.99))],
      ["committed / baseline 2", ratio(ms(committed, 0.5), ms(bare2, 0.5)), ratio(ms(committed, 0.99), ms(bare2, 0.99))],
    ]),
  )
  console.log(
    `   the loop asked for ${Math.min(...delays)}–${Math.max(...delays)} ms timers (the ${GOAL_DEBOUNCE_MS} ms debounce less what passed before ` +
      `they were asked); each fired at once and the clock skipped the delay, so none of it is in the figures`,
  )
  const parts = (pick: (b: BareSample) => number): string => `${formatMicros(percentileMicros(column(bare, pick), 0.5))} µs`
  console.log(
    `   baseline parts, p50: snapshot commit ${parts((b) => b.commit)}, document read ${parts((b) => b.read)}, ` +
      `atomic write ${parts((b) => b.write)}, second commit ${parts((b) => b.secondCommit)}`,
  )
  console.log("\n   by the turn the brief opens (the document grows by a Turn Ledger line per turn)")
  const bucketRows = TURN_BUCKETS.map(([from, to]) => {
    const inBucket = cycles.filter((c) => c.turn >= from && c.turn <= to)
    const bytes = inBucket.map((c) => c.documentBytes)
    const p50 = (pick: (c: CycleSample) => number): string => fixedMs(ms(column(inBucket, pick), 0.5))
    return [`   turns ${from}–${to}`, String(inBucket.length), `${Math.min(...bytes)}–${Math.max(...bytes)}`, p50((c) => c.brief), p50((c) => c.committed)]
  })
  console.log(formatTable([["   turns", "cycles", "document bytes", "brief p50 ms", "committed p50 ms"], ...bucketRows]))
  return { briefP50: ms(brief, 0.5) }
}

/** The first contender is Forge's; every other one is a baseline it is divided by. */
function printContenders(title: string, contenders: readonly Contender[], samples: Float64Array[], unit: "ms" | "µs"): void {
  const value = (ns: Float64Array, p: number): string => (unit === "ms" ? fixedMs(ms(ns, p)) : formatMicros(percentileMicros(ns, p)))
  const at = (i: number): Float64Array => samples[i] as Float64Array
  const [forge, ...baselines] = contenders as [Contender, ...Contender[]]
  console.log(title)
  console.log(
    formatTable([
      ["contender", `p50 ${unit}`, `p99 ${unit}`],
      ...contenders.map((c, i) => [c.label, value(at(i), 0.5), value(at(i), 0.99)]),
      ...baselines.map((b, i) => [
        `${forge.short} / ${b.short}`,
        ratio(percentileMicros(at(0), 0.5), percentileMicros(at(i + 1), 0.5)),
        ratio(percentileMicros(at(0), 0.99), percentileMicros(at(i + 1), 0.99)),
      ]),
    ]),
  )
}

async function main(): Promise<void> {
  const started = process.hrtime.bigint()
  const workspace = mkdtempSync(path.join(os.tmpdir(), "forge-bench-goal-"))
  const problems: string[] = []
  let bench: LoopBench | undefined
  try {
    const setupStart = process.hrtime.bigint()
    bench = await createLoopBench(workspace, SESSIONS)
    const setupSeconds = Number(process.hrtime.bigint() - setupStart) / 1e9
    const loop = await driveLoop(bench)

    const logDir = path.join(workspace, "check-logs")
    mkdirSync(logDir, { recursive: true })
    const command = commandContenders(workspace, logDir, problems)
    const commandSamples = await interleave(command.contenders, COMMAND_ROUNDS, COMMAND_WARM_UP)
    const left = await leftovers(logDir)
    if (left.length > 0) problems.push(`the check runner left ${left.length} entr(ies) in its log folder: ${left.slice(0, 3).join(", ")}`)
    const contains = await containsContenders(workspace, problems)
    const containsSamples = await interleave(contains.contenders, CONTAINS_ROUNDS, CONTAINS_WARM_UP)

    console.log(`goal harness — ${machineLine()}`)
    console.log(
      `workspace: real runtime (SQLite in the temp folder), real goal documents; ${SESSIONS} goals armed by the user (max_turns ${GOAL_MAX_TURNS}) ` +
        `in ${setupSeconds.toFixed(1)} s\n`,
    )
    const { briefP50 } = printLoop(loop.cycles, loop.bare, bench.goalsWritten())
    console.log("")
    printContenders(
      `2. command check "true", ${COMMAND_ROUNDS} runs each, interleaved (order rotating), after ${COMMAND_WARM_UP} warm-up runs; ` +
        `the runner's shell is ${command.shell}; ${await processCount()} processes on the machine`,
      command.contenders,
      commandSamples,
      "ms",
    )
    console.log(`   p99 of ${COMMAND_ROUNDS} runs is the second slowest run.`)
    console.log("")
    printContenders(
      `3. --contains check on a ${contains.bytes}-byte file, ${CONTAINS_ROUNDS} runs each, interleaved, after ${CONTAINS_WARM_UP} warm-up runs`,
      contains.contenders,
      containsSamples,
      "µs",
    )

    console.log("\ntargets")
    console.log(
      formatTable([
        ["target", "figure", "met"],
        [`sessionIdle → brief p50 < ${TARGET_BRIEF_P50_MS} ms (debounce skipped)`, `${fixedMs(briefP50)} ms`, mark(briefP50 < TARGET_BRIEF_P50_MS)],
      ]),
    )
    console.log(`\nwhole run ${(Number(process.hrtime.bigint() - started) / 1e9).toFixed(0)} s.`)
    problems.push(...bench.problems)
    if (bench.errors.length > 0) console.log(`\nthe plugin logged:\n${bench.errors.join("\n")}`)
    if (problems.length > 0) {
      console.error(`\nwrong answers:\n${problems.join("\n")}`)
      process.exitCode = 1
    }
  } finally {
    await bench?.close()
    rmSync(workspace, { recursive: true, force: true })
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error))
  process.exitCode = 1
})
