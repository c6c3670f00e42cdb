// bench:loop, part 2: a pass's handoff applied to the next pass's brief sent, on the real loop service and the
// workspace's one lifecycle host over real SQLite. Only opencode and git are stand-ins (a session opens at once, a
// worktree is a folder): what is timed is Forge's own work between the idle and the brief. The baseline is the one
// durable step before it, the handoff recorded, timed on the same loop.
import { mkdirSync } from "node:fs"
import path from "node:path"
import { SqliteDriverClaimStore } from "../adapters/storage/driver.claim.repository"
import { SqliteLoopReviews } from "../adapters/storage/review.repository"
import { DriverClaims } from "../services/lifecycle/driver.claim"
import type { Logger } from "../services/lifecycle/lifecycle.ports"
import type { HandoffFields } from "../services/loop/loop.handoff"
import { defineLoopLifecycle } from "../services/loop/loop.lifecycle"
import type { LoopSessions, LoopWorktrees } from "../services/loop/loop.ports"
import { LoopService } from "../services/loop/loop.service"
import { systemClock } from "../src/system"
import { composeWorkspace } from "../src/runtime"
import { formatTable } from "./bench.stats"

const HANDOFFS = 200
const DRIVER = "bench-process"
const CODED: HandoffFields = { changes: [{ summary: "the change", reason: "the section" }], verification: [{ command: "npm test", outcome: "pass" }] }
// A bug sends the section back to a coder: the loop goes on, pass after pass, without running out of sections.
const DIRTY: HandoffFields = { findings: [{ severity: "bug", file: "a.ts", line: 1, description: "still wrong" }] }

const quiet: Logger = { info() {}, warn() {}, error() {} }

/** opencode's sessions, answering at once; `sent` resolves the brief a test waits for. */
class InstantSessions implements LoopSessions {
  async usage() {
    return { input: 0, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0, cost: 0 }
  }
  private opened = 0
  private waiter: (() => void) | undefined
  briefs = 0
  /** The session the last brief went to. */
  briefed: string | undefined
  async open(): Promise<string> {
    this.opened += 1
    return `ses_bench_${this.opened}`
  }
  async send(session: string): Promise<void> {
    this.briefs += 1
    this.briefed = session
    this.waiter?.()
  }
  async stop(): Promise<void> {}
  async tell(): Promise<void> {}
  async busyUnder(): Promise<string[]> {
    return []
  }
  async isIdle(): Promise<boolean> {
    return true
  }
  nextBrief(): Promise<void> {
    return new Promise((resolve) => (this.waiter = resolve))
  }
}

function worktreesIn(dir: string): LoopWorktrees {
  return {
    head: async () => "0123456789abcdef0123456789abcdef01234567",
    placeFor: (name) => ({ dir: path.join(dir, ".opencode", "forge", "worktrees", name), branch: `forge/loop/${name}` }),
    isTaken: async () => false,
    create: async (worktree) => void mkdirSync(worktree.dir, { recursive: true }),
    reopen: async () => undefined,
    commitAll: async () => null,
    branchFacts: async () => ({ commits: 0, last: null, uncommitted: 0 }),
  }
}

const ms = (ns: bigint): number => Number(ns) / 1e6
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN
const p90 = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil(0.9 * sorted.length) - 1)] ?? Number.NaN
}

/** The briefed session once the step that opened it is committed (a brief is sent inside that step), untimed. */
async function committedSession(service: LoopService, loopName: string, briefed: string | undefined): Promise<string> {
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    const session = service.lifecycle.snapshot(loopName)?.context.session
    if (session !== null && session !== undefined && session === briefed) return session
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
  const snapshot = service.lifecycle.snapshot(loopName)
  throw new Error(`loop ${loopName}: the briefed session ${briefed} was never committed (${JSON.stringify(snapshot?.value)}: ${snapshot?.context.reason})`)
}

export async function measureHandoffs(dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true })
  const workspace = composeWorkspace({ workspace: dir, clock: systemClock, log: quiet })
  const opened = await workspace.open()
  try {
    const claims = new DriverClaims({
      store: async () => new SqliteDriverClaimStore(opened.connection),
      identity: { me: DRIVER, isAlive: (holder) => holder === DRIVER },
      clock: systemClock,
      log: quiet,
    })
    const sessions = new InstantSessions()
    const worktrees = worktreesIn(dir)
    let service: LoopService | undefined
    const lifecycle = defineLoopLifecycle(workspace.host, {
      worktrees,
      sessions,
      reviews: new SqliteLoopReviews(async () => opened.connection),
      clock: systemClock,
      report: (name, event) => service?.report(name, event),
      driver: DRIVER,
      log: quiet,
    })
    service = new LoopService({
      lifecycle,
      worktrees,
      sessions,
      plans: { liveFor: async () => undefined },
      sandboxes: { mode: "off", network: false, problem: async () => null },
      claims,
      clock: systemClock,
      log: quiet,
    })
    const first = sessions.nextBrief()
    await service.start("ses_bench_host", { title: "bench", plan: "## Phase 1: One\n\nDo one.\n", maxIterations: HANDOFFS + 10 })
    await first
    const [[loopName] = []] = [...service.lifecycle.instances()]
    if (loopName === undefined) throw new Error("the loop did not start")
    const recorded: number[] = []
    const applied: number[] = []
    for (let i = 0; i < HANDOFFS; i++) {
      const session = await committedSession(service, loopName, sessions.briefed)
      const a = process.hrtime.bigint()
      await service.handoff(session, i % 2 === 0 ? CODED : DIRTY)
      const b = process.hrtime.bigint()
      const brief = sessions.nextBrief()
      await service.sessionIdle(session)
      await brief
      const c = process.hrtime.bigint()
      recorded.push(ms(b - a))
      applied.push(ms(c - b))
    }
    if (sessions.briefs !== HANDOFFS + 1) throw new Error(`expected ${HANDOFFS + 1} briefs, saw ${sessions.briefs}`)
    const base = median(recorded)
    return formatTable([
      ["step", "median ms", "p90 ms", "× baseline"],
      ["baseline: the handoff recorded (one durable step)", base.toFixed(2), p90(recorded).toFixed(2), "1.00"],
      ["the idle applied → next session opened and briefed", median(applied).toFixed(2), p90(applied).toFixed(2), (median(applied) / base).toFixed(2)],
      [`(${HANDOFFS} handoffs of one loop, coder and auditor in turn)`, "", "", ""],
    ])
  } finally {
    await opened.close()
  }
}
