// While a Forge tool runs on hostile input in one session, does another session's plain API request still answer
// promptly? A real `opencode serve` with the plugin (from source) and the e2e harness's scripted model: session A's
// model calls one Forge tool with hostile arguments; meanwhile session B's `GET /session/:id` is sent every 20 ms and
// timed. Each case is run side by side with a baseline turn (forge_read of a small file) on the same server, and the
// p50/p99 of B's requests printed for both; the target is p99 ≤ 200 ms. forge_shell is not among the cases:
// its call waits for the user's dialog (the bench answers none); its success_pattern runs in a worker thread with a
// time budget (adapters/process/pattern.matcher.ts).
// Run: npm run bench:hostile [-- --rounds N]. Figures are printed, never asserted; the run fails only when a turn
// does not finish.
import fs from "node:fs"
import http from "node:http"
import type { AddressInfo } from "node:net"
import path from "node:path"
import { createOpencodeClient, type OpencodeClient } from "@opencode-ai/sdk/client"
import { startFakeLlm } from "../test/e2e/fake-llm"
import { sleep, spawnTracked, withTimeout } from "../test/e2e/processes"
import { REPO_ROOT, createSandbox, opencodeBinary, opencodeVersion, releaseSandbox } from "../test/e2e/sandbox"
import { type ModelStep, scenarioSchema } from "../test/e2e/scenario.schema"
import { machineLine, roundsArg } from "./bench.machine"
import { formatTable, percentileMicros } from "./bench.stats"

const MB = 1024 * 1024
const PROBE_EVERY_MS = 20
const TURN_TIMEOUT_MS = 180_000
const TARGET_P99_MS = 200

interface HostileCase {
  label: string
  tool: string
  args: (project: string, web: string) => Record<string, unknown>
}

const BASELINE: HostileCase = { label: "baseline: forge_read of a small file", tool: "forge_read", args: (p) => ({ path: path.join(p, "small.txt") }) }

const CASES: HostileCase[] = [
  { label: "forge_fetch: 200 KB of nested <div>s", tool: "forge_fetch", args: (_p, web) => ({ url: `${web}/nested.html` }) },
  { label: "forge_fetch: 2 MB of flat HTML", tool: "forge_fetch", args: (_p, web) => ({ url: `${web}/flat.html` }) },
  {
    label: "forge_patch: 1 MB search in a 10 MiB file",
    tool: "forge_patch",
    args: (p) => ({ path: path.join(p, "big.txt"), patches: [{ operation: "replace", search: "ab".repeat(MB / 2), content: "x" }] }),
  },
  {
    label: "forge_patch: periodic 64 Ki search, 10 MiB of 'a'",
    tool: "forge_patch",
    args: (p) => ({ path: path.join(p, "aaa.txt"), patches: [{ operation: "replace", search: `${"a".repeat(65_535)}b`, content: "x" }] }),
  },
  { label: "goal_write: 1 MB objective", tool: "goal_write", args: () => ({ objective: "x".repeat(MB) }) },
  { label: "forge_write: 1 MB content", tool: "forge_write", args: (p) => ({ path: path.join(p, "written.txt"), content: "y".repeat(MB) }) },
  { label: "forge_search: catastrophic file_pattern", tool: "forge_search", args: (p) => ({ path: p, regex: "x", file_pattern: `${"*a".repeat(25)}b` }) },
  { label: "forge_search: catastrophic regex", tool: "forge_search", args: (p) => ({ path: p, regex: "(a+)+$" }) },
]

function serveWeb(): Promise<{ url: string; close(): Promise<void> }> {
  const nested = `<html><body>${"<div>".repeat(18_000)}deep${"</div>".repeat(18_000)}</body></html>`
  const flat = `<html><body>${"<p>para <b>x</b> <a href='/y'>z</a></p>".repeat(50_000)}</body></html>`
  const server = http.createServer((req, res) => {
    const body = req.url === "/nested.html" ? nested : req.url === "/flat.html" ? flat : undefined
    if (body === undefined) res.writeHead(404).end()
    else res.writeHead(200, { "content-type": "text/html" }).end(body)
  })
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => new Promise((done) => server.close(() => done())),
      }),
    ),
  )
}

/** Times `GET /session/:id` of session `probe` every PROBE_EVERY_MS until `done` settles; latencies in ns. */
async function probeWhile(client: OpencodeClient, probe: string, done: Promise<unknown>): Promise<number[]> {
  const samples: number[] = []
  let finished = false
  void done.finally(() => (finished = true))
  while (!finished) {
    const start = process.hrtime.bigint()
    await client.session.get({ path: { id: probe } })
    samples.push(Number(process.hrtime.bigint() - start))
    await sleep(PROBE_EVERY_MS)
  }
  return samples
}

async function main(): Promise<void> {
  const rounds = roundsArg(process.argv.slice(2), 3)
  // A first turn, not counted: the plugin composes its services on the first Forge call (seconds on a loaded machine).
  const WARM_UP: HostileCase = { ...BASELINE, label: "warm-up" }
  const order = [WARM_UP, ...Array.from({ length: rounds }, () => [BASELINE, ...CASES.flatMap((c) => [c, BASELINE])]).flat()]
  const web = await serveWeb()
  // Each turn: the model calls the case's tool, then says done (the steps are filled in once the sandbox exists).
  const steps: ModelStep[] = []
  const fake = await startFakeLlm(steps)
  const scenario = scenarioSchema.parse({ name: "hostile bench", turns: [{ prompt: "go" }], model: [{ text: "done" }] })
  const sandbox = createSandbox(scenario, { repoRoot: REPO_ROOT, llmUrl: fake.url, hostVersion: opencodeVersion(REPO_ROOT) })
  const project = sandbox.project
  fs.writeFileSync(path.join(project, "small.txt"), "small\n")
  fs.writeFileSync(path.join(project, "big.txt"), `${"const value = compute(1, 'lorem ipsum dolor sit amet');\n".repeat((10 * MB) / 56)}`)
  fs.writeFileSync(path.join(project, "aaa.txt"), "a".repeat(10 * MB))
  for (const c of order) steps.push({ tool: c.tool, args: c.args(project, web.url) } as ModelStep, { text: "done" } as ModelStep)
  const proc = spawnTracked(opencodeBinary(REPO_ROOT), ["serve", "--hostname", "127.0.0.1", "--port", "0", "--log-level", "WARN"], {
    cwd: project,
    env: sandbox.env,
  })
  try {
    let out = ""
    const url = await withTimeout(
      new Promise<string>((resolve) => {
        const poll = setInterval(() => {
          out = proc.stdout()
          const m = /listening on (http:\/\/\S+)/.exec(out)
          if (m?.[1]) {
            clearInterval(poll)
            resolve(m[1])
          }
        }, 50)
      }),
      60_000,
      "opencode serve did not listen within 60 s",
    )
    const client = createOpencodeClient({ baseUrl: url, directory: project })
    const probe = (await client.session.create({ body: { title: "probe" } })).data?.id
    if (probe === undefined) throw new Error("could not create the probe session")
    const samples = new Map<string, number[]>()
    for (const c of order) {
      // A fresh session A per turn: one session's history would carry every earlier turn's megabytes of tool input into
      // each later model request (opencode's work and the scripted model's, in this process, would grow turn by turn).
      const worker = (await client.session.create({ body: { title: `hostile: ${c.label}` } })).data?.id
      if (worker === undefined) throw new Error("could not create the worker session")
      const turn = withTimeout(
        client.session.prompt({ path: { id: worker }, body: { parts: [{ type: "text", text: `run ${c.tool}` }] } }),
        TURN_TIMEOUT_MS,
        `${c.label}: the turn did not finish`,
      )
      const latencies = await probeWhile(
        client,
        probe,
        turn.catch(() => undefined),
      )
      await turn
      // The scripted model keeps each request's whole body: what the bench never reads is let go.
      fake.requests.length = 0
      samples.set(c.label, [...(samples.get(c.label) ?? []), ...latencies])
      const worst = latencies.reduce((a, b) => Math.max(a, b), 0) / 1e6
      console.log(`  ${c.label}: ${latencies.length} requests, slowest ${worst.toFixed(1)} ms`)
    }
    console.log(machineLine())
    console.log(
      `session B's GET /session/:id every ${PROBE_EVERY_MS} ms while session A's model calls one Forge tool on hostile input; ${rounds} round(s), each case beside a baseline turn`,
    )
    const ms = (ns: number[], p: number) => (percentileMicros(Float64Array.from(ns), p) / 1000).toFixed(1)
    const base = samples.get(BASELINE.label) ?? []
    console.log(
      formatTable([
        ["case", "requests", "p50 ms", "p99 ms", "max ms", `p99 ≤ ${TARGET_P99_MS} ms`],
        ...[BASELINE, ...CASES].map((c) => {
          const s = samples.get(c.label) ?? []
          return [
            c.label,
            String(s.length),
            ms(s, 0.5),
            ms(s, 0.99),
            ms(s, 1),
            percentileMicros(Float64Array.from(s), 0.99) / 1000 <= TARGET_P99_MS ? "yes" : "NO",
          ]
        }),
      ]),
    )
    console.log(`baseline p50 ${ms(base, 0.5)} ms, p99 ${ms(base, 0.99)} ms`)
  } finally {
    await proc.stop()
    await fake.close()
    await web.close()
    releaseSandbox(sandbox)
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error))
  process.exitCode = 1
})
