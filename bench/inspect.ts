// Times the live inspector's page on a workspace holding 1,000 lifecycles: `forgecharts inspect` (the built CLI,
// dist/cli.js) serves it, Debian's chromium (through playwright-core) loads it fresh each round, and the page's first
// paint and the moment its list of instances is in are read from the browser's own clock (Paint Timing, from the
// navigation's start). Side by side in the same rounds, the baseline: the sqlite3 CLI reading the same rows. The CLI's
// own start, from spawn to listening, is timed once per round too.
// Run: npm run build && npm run bench:inspect [-- --rounds N]. Figures are printed, never asserted against timers; the
// run fails only on wrong answers (a page that does not list what the workspace holds).
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync } from "node:fs"
import path from "node:path"
import type { Page } from "playwright-core"
import { launchChromium } from "../test/integration/inspector/browser"
import { machineLine, roundsArg } from "./bench.machine"
import { formatTable } from "./bench.stats"
import { seedStatusWorkspace } from "./status.workspace"

const LIFECYCLES = 1_000
const DEFAULT_ROUNDS = 20
const TARGET_MS = 500
const SQLITE3 = "/usr/bin/sqlite3"
const CLI = path.join(path.resolve(import.meta.dirname, ".."), "dist/cli.js")
const BASELINE_SQL = "select machine_id, instance_id, state from actors; select count(*) from transitions"

/** Starts the built inspector; resolves with its URL and the ms from spawn to its first line (it listens then). */
function startInspector(workspace: string): Promise<{ url: string; ms: number; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint()
    const child = spawn(process.execPath, [CLI, "inspect", workspace, "--json"], { stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    let errors = ""
    child.stderr?.setEncoding("utf8").on("data", (c: string) => (errors += c))
    child.stdout?.setEncoding("utf8").on("data", (c: string) => {
      out += c
      if (!out.includes("\n")) return
      const ms = Number(process.hrtime.bigint() - start) / 1e6
      resolve({ url: (JSON.parse(out.split("\n")[0] ?? "") as { url: string }).url, ms, child })
    })
    child.once("exit", (code) => reject(new Error(`forgecharts inspect exited (${code}) before listening: ${errors}`)))
  })
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill("SIGINT")
  })
}

function sqlite3Rows(database: string): Promise<{ ms: number; rows: number }> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint()
    const child = spawn(SQLITE3, [database, BASELINE_SQL], { stdio: ["ignore", "pipe", "inherit"] })
    let out = ""
    child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c))
    child.once("close", (code) => {
      if (code !== 0) return reject(new Error(`sqlite3 exited ${code}`))
      resolve({ ms: Number(process.hrtime.bigint() - start) / 1e6, rows: out.trimEnd().split("\n").length - 1 })
    })
  })
}

/** The page loaded fresh: first paint, first contentful paint and the list's arrival, in ms from the navigation's start. */
async function pageTimes(page: Page, url: string): Promise<{ paint: number; contentful: number; listed: number; count: number }> {
  await page.goto(url, { waitUntil: "commit" })
  await page.waitForSelector("#instances .instance")
  // A string, run as it is: the browser's own names (performance, document), none of this file's.
  return (await page.evaluate(`(() => {
    const paint = (name) => performance.getEntriesByType("paint").find((e) => e.name === name)?.startTime ?? NaN
    const count = Number(/of (\\d+)/.exec(document.getElementById("count")?.textContent ?? "")?.[1])
    return { paint: paint("first-paint"), contentful: paint("first-contentful-paint"), listed: performance.now(), count }
  })()`)) as { paint: number; contentful: number; listed: number; count: number }
}

/** First contentful paint of a page with one line of text: what any page costs this browser in a fresh context. */
async function plainPaint(page: Page, url: string): Promise<number> {
  await page.goto(url, { waitUntil: "load" })
  for (let tries = 0; tries < 100; tries++) {
    const paint = (await page.evaluate(`performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? -1`)) as number
    if (paint >= 0) return paint
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`${url} never painted`)
}

const median = (values: readonly number[]): number => {
  const s = [...values].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2
}
const p90 = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.max(0, Math.ceil(0.9 * values.length) - 1)] as number

async function main(): Promise<void> {
  const rounds = roundsArg(process.argv.slice(2), DEFAULT_ROUNDS)
  if (!existsSync(CLI)) throw new Error("dist/cli.js not found: run `npm run build` first")
  if (!existsSync(SQLITE3)) throw new Error(`${SQLITE3} not found: the baseline needs the sqlite3 CLI (apt install sqlite3)`)
  const workspace = await seedStatusWorkspace(LIFECYCLES)
  const browser = await launchChromium()
  const wrong: string[] = []
  const samples = {
    baseline: [] as number[],
    start: [] as number[],
    paint: [] as number[],
    contentful: [] as number[],
    listed: [] as number[],
    floor: [] as number[],
  }
  try {
    console.log(`the inspector's page on ${LIFECYCLES.toLocaleString("en-US")} lifecycles — ${machineLine()}`)
    console.log(`workspace: ${workspace.describe}`)
    for (let round = 0; round < rounds; round++) {
      const base = await sqlite3Rows(workspace.database)
      if (base.rows !== workspace.instances) wrong.push(`round ${round + 1}: sqlite3 read ${base.rows} rows, the workspace holds ${workspace.instances}`)
      samples.baseline.push(base.ms)
      const inspector = await startInspector(workspace.dir)
      samples.start.push(inspector.ms)
      // A fresh context each round: nothing cached from the round before.
      const context = await browser.newContext()
      try {
        const times = await pageTimes(await context.newPage(), inspector.url)
        if (times.count !== workspace.instances)
          wrong.push(`round ${round + 1}: the page lists ${times.count} instances, the workspace holds ${workspace.instances}`)
        samples.paint.push(times.paint)
        samples.contentful.push(times.contentful)
        samples.listed.push(times.listed)
        // The browser's own floor: a one-line page of the same server, in a fresh context too.
        const floor = await browser.newContext()
        try {
          samples.floor.push(await plainPaint(await floor.newPage(), `${inspector.url}no-such-page`))
        } finally {
          await floor.close()
        }
      } finally {
        await context.close()
        await stop(inspector.child)
      }
    }
    const base = median(samples.baseline)
    const rows: string[][] = [["run", "median ms", "p90 ms", "× baseline"]]
    const row = (label: string, values: number[]) =>
      rows.push([label, median(values).toFixed(1), p90(values).toFixed(1), `${(median(values) / base).toFixed(1)}×`])
    row("baseline: sqlite3 CLI (actors' machine, instance, state + transitions' count)", samples.baseline)
    row("page: first paint (from navigation start)", samples.paint)
    row("page: first contentful paint", samples.contentful)
    row("page: every instance listed", samples.listed)
    row("  part: a one-line page of the same server (the browser's floor)", samples.floor)
    row("  part: forgecharts inspect, spawn to listening", samples.start)
    console.log(`\n${rounds} round(s), a fresh browser context and a fresh inspector each\n${formatTable(rows)}`)
    const paint = median(samples.contentful)
    console.log(
      `target: the page's first paint in under ${TARGET_MS} ms … ${paint < TARGET_MS ? "yes" : "NO"} (first contentful paint: median ${paint.toFixed(0)} ms, p90 ${p90(samples.contentful).toFixed(0)} ms)`,
    )
    if (wrong.length > 0) {
      console.error(`\nwrong answers:\n${wrong.join("\n")}`)
      process.exitCode = 1
    }
  } finally {
    await browser.close()
    workspace.remove()
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error))
  process.exitCode = 1
})
