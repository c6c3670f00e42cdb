// Times `forgecharts status` (the built CLI, dist/cli.js, its start included) on a workspace holding 1,000 lifecycles,
// side by side in one run with a baseline: the sqlite3 CLI reading the same rows (every actor's machine, instance and
// state, and the transitions' count) from the same database. Parts beside them say where the CLI's time goes: Node's
// own start, the CLI on a folder without a database (start, imports, sandbox probe), the CLI without bwrap on PATH (no
// probe spawned), and the sandbox probe alone.
// Run: npm run build && npm run bench:status [-- --rounds N]. Figures are printed, never asserted against timers; the
// run fails only on wrong answers (an output that does not list what the workspace holds).
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { findBwrap, probeBwrap } from "../adapters/sandbox/bwrap.probe"
import { machineLine, roundsArg } from "./bench.machine"
import { formatTable } from "./bench.stats"
import { seedStatusWorkspace, type StatusWorkspace } from "./status.workspace"

const LIFECYCLES = 1_000
const DEFAULT_ROUNDS = 30
const TARGET_MS = 200
const SQLITE3 = "/usr/bin/sqlite3"
const REPO_ROOT = path.resolve(import.meta.dirname, "..")
const CLI = path.join(REPO_ROOT, "dist/cli.js")
const BASELINE_SQL = "select machine_id, instance_id, state from actors; select count(*) from transitions"

interface Run {
  ms: number
  stdout: string
}

/** Milliseconds from spawn to exit, with the whole stdout; a non-zero exit is a wrong answer. */
function timed(file: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint()
    const child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"], env })
    const out: Buffer[] = []
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.once("error", reject)
    child.once("close", (code) => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6
      if (code !== 0) reject(new Error(`${file} ${args.join(" ")} exited ${code}: ${stderr}`))
      else resolve({ ms, stdout: Buffer.concat(out).toString("utf8") })
    })
  })
}

const sorted = (values: readonly number[]) => [...values].sort((a, b) => a - b)
const median = (values: readonly number[]): number => {
  const s = sorted(values)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2
}
/** Nearest-rank p90. */
const p90 = (values: readonly number[]): number => sorted(values)[Math.max(0, Math.ceil(0.9 * values.length) - 1)] as number

/** `machine instance state` of every row, sorted: what both the baseline and the CLI must list. */
const key = (machine: string, instance: string, state: string) => `${machine}\t${instance}\t${state}`

function baselineRows(stdout: string): { rows: string[]; transitions: number } {
  const lines = stdout.trimEnd().split("\n")
  const transitions = Number(lines.pop())
  const rows = lines.map((line) => {
    const [machine = "", instance = "", state = ""] = line.split("|")
    return key(machine, instance, state)
  })
  return { rows: rows.sort(), transitions }
}

function textRows(stdout: string): string[] {
  const [sandbox, ...lines] = stdout.trimEnd().split("\n")
  if (!sandbox?.startsWith("loop sandbox: ")) throw new Error(`forgecharts status: the first line is not the sandbox's: ${sandbox}`)
  return lines
    .map((line) => {
      const [machine = "", state = "", instance = ""] = line.split("\t")
      return key(machine, instance, state.replace(/ \(final\)$/, ""))
    })
    .sort()
}

function jsonRows(stdout: string): string[] {
  const report = JSON.parse(stdout) as { damaged: unknown[]; instances: { machine: string; instance: string; state: string }[] }
  if (report.damaged.length > 0) throw new Error(`forgecharts status --json: ${report.damaged.length} damaged row(s)`)
  return report.instances.map((i) => key(i.machine, i.instance, i.state)).sort()
}

/** The first run of each contender, checked against the workspace: every row listed, by each, alike. */
function checkAnswers(workspace: StatusWorkspace, baseline: Run, text: Run, json: Run): string[] {
  const wrong: string[] = []
  const base = baselineRows(baseline.stdout)
  if (base.rows.length !== workspace.instances) wrong.push(`baseline: ${base.rows.length} rows, the workspace holds ${workspace.instances}`)
  if (base.transitions !== workspace.transitions) wrong.push(`baseline: ${base.transitions} transitions counted, the workspace holds ${workspace.transitions}`)
  const same = (label: string, rows: string[]) => {
    if (rows.length !== base.rows.length || rows.some((row, i) => row !== base.rows[i]))
      wrong.push(`${label}: lists ${rows.length} instance(s), not the ${base.rows.length} the database holds (or not the same ones)`)
  }
  same("forgecharts status", textRows(text.stdout))
  same("forgecharts status --json", jsonRows(json.stdout))
  return wrong
}

type Name = "baseline" | "text" | "json" | "node" | "empty" | "unprobed" | "probe"

interface Contender {
  name: Name
  label: string
  run(): Promise<Run>
}

async function main(): Promise<void> {
  const rounds = roundsArg(process.argv.slice(2), DEFAULT_ROUNDS)
  if (!existsSync(CLI)) throw new Error("dist/cli.js not found: run `npm run build` first")
  if (!existsSync(SQLITE3)) throw new Error(`${SQLITE3} not found: the baseline needs the sqlite3 CLI (apt install sqlite3)`)
  const built = statSync(CLI).mtimeMs
  const stale = ["src/cli.ts", "src/cli.status.ts"].filter((file) => statSync(path.join(REPO_ROOT, file)).mtimeMs > built)
  const workspace = await seedStatusWorkspace(LIFECYCLES)
  const empty = mkdtempSync(path.join(os.tmpdir(), "forge-bench-status-empty-"))
  const bwrap = findBwrap()
  try {
    console.log(`forgecharts status on ${LIFECYCLES.toLocaleString("en-US")} lifecycles — ${machineLine()}`)
    console.log(`workspace: ${workspace.describe}; written through the lifecycle repository in ${workspace.seconds.toFixed(1)} s`)
    if (stale.length > 0) console.log(`note: ${stale.join(", ")} changed after dist/cli.js was built: run \`npm run build\` to time them`)
    const cli = (args: string[], env?: NodeJS.ProcessEnv) => () => timed(process.execPath, [CLI, ...args], env)
    const contenders: Contender[] = [
      {
        name: "baseline",
        label: "baseline: sqlite3 CLI (actors' machine, instance, state + transitions' count)",
        run: () => timed(SQLITE3, [workspace.database, BASELINE_SQL]),
      },
      { name: "text", label: "forgecharts status", run: cli(["status", workspace.dir]) },
      { name: "json", label: "forgecharts status --json", run: cli(["status", workspace.dir, "--json"]) },
      { name: "node", label: "  part: node -e '' (Node's own start)", run: () => timed(process.execPath, ["-e", ""]) },
      { name: "empty", label: "  part: forgecharts status, folder without a database", run: cli(["status", empty]) },
      // No bwrap on PATH: status says the sandbox cannot start and spawns no probe; the rest of its work is the same.
      {
        name: "unprobed",
        label: "  part: forgecharts status, no bwrap on PATH (no probe)",
        run: cli(["status", workspace.dir], { ...process.env, PATH: empty }),
      },
      {
        name: "probe",
        label: "  part: the sandbox probe alone (probeBwrap, in-process)",
        run: async () => {
          const start = process.hrtime.bigint()
          const problem = await probeBwrap(bwrap)
          return { ms: Number(process.hrtime.bigint() - start) / 1e6, stdout: problem ?? "" }
        },
      },
    ]
    // One untimed run of each first: the CLI's files and the database come into the page cache; the answers are checked.
    const first = new Map<Name, Run>()
    for (const c of contenders) first.set(c.name, await c.run())
    const firstOf = (name: Name) => first.get(name) as Run
    const wrong = checkAnswers(workspace, firstOf("baseline"), firstOf("text"), firstOf("json"))
    if (textRows(firstOf("unprobed").stdout).join("\n") !== textRows(firstOf("text").stdout).join("\n"))
      wrong.push("forgecharts status without bwrap on PATH lists other instances than with it")
    const problem = firstOf("probe").stdout
    console.log(`sandbox: ${problem === "" ? `bubblewrap starts here (${bwrap})` : `cannot start here: ${problem}`}`)

    const samples = new Map<Name, number[]>(contenders.map((c) => [c.name, []]))
    for (let round = 0; round < rounds; round++) {
      // The order rotates every round, so no contender always runs first (or right after the same other one).
      for (let k = 0; k < contenders.length; k++) {
        const c = contenders[(k + round) % contenders.length] as Contender
        const run = await c.run()
        samples.get(c.name)?.push(run.ms)
        const expected = firstOf(c.name).stdout.length
        if (run.stdout.length !== expected)
          wrong.push(`${c.label.trim()}: round ${round + 1} printed ${run.stdout.length} characters, the first run ${expected}`)
      }
    }
    const of = (name: Name) => samples.get(name) ?? []
    const base = median(of("baseline"))
    const rows: string[][] = [["run", "median ms", "p90 ms", "× baseline"]]
    for (const c of contenders) rows.push([c.label, median(of(c.name)).toFixed(1), p90(of(c.name)).toFixed(1), `${(median(of(c.name)) / base).toFixed(1)}×`])
    console.log(`\n${rounds} round(s), order rotating; ms from spawn to exit, stdout read whole\n${formatTable(rows)}`)

    const text = median(of("text"))
    const share = text - median(of("unprobed"))
    console.log(
      `\nthe sandbox probe spawns bwrap: ${median(of("probe")).toFixed(1)} ms alone; status with it ${text.toFixed(1)} ms, without it ${median(of("unprobed")).toFixed(1)} ms: ` +
        `its share ${share.toFixed(1)} ms (${((100 * share) / text).toFixed(0)} %)`,
    )
    console.log(`Node's own start is ${((100 * median(of("node"))) / text).toFixed(0)} % of a status run; sqlite3's CLI starts in a fraction of it`)
    for (const name of ["text", "json"] as const) {
      const label = contenders.find((c) => c.name === name)?.label ?? name
      const m = median(of(name))
      const p = p90(of(name))
      console.log(
        `target: ${label} answers in under ${TARGET_MS} ms … ${m < TARGET_MS ? "yes" : "NO"} (median ${m.toFixed(0)} ms; p90 ${p.toFixed(0)} ms, ${p < TARGET_MS ? "within" : "past"} it)`,
      )
    }
    if (wrong.length > 0) {
      console.error(`\nwrong answers:\n${wrong.join("\n")}`)
      process.exitCode = 1
    }
  } finally {
    workspace.remove()
    rmSync(empty, { recursive: true, force: true })
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error))
  process.exitCode = 1
})
