// The goal harness's continuation loop as production composes it (src/goal/goal.lazy.ts): the goal lifecycle on the real
// runtime's one lifecycle host (SQLite in the temp workspace), real goal documents (FsGoalFiles), the GoalService and
// the GoalLoop. Only the world around it is scripted: Timers that record the requested delay and let the bench fire
// the callback at once (the clock then skips the delay, so the 2 s debounce is skipped, never slept), a prompter that
// stamps the moment it is handed the brief, and SessionFacts that answer at once (speaker "forge", no draft plan,
// nothing spent). Also the baseline: the bare I/O of a cycle, on the same database and folder.
import { DriverClaims } from "../services/lifecycle/driver.claim"
import { readFileSync } from "node:fs"
import { readFile } from "node:fs/promises"
import path from "node:path"
import { createGoalCheckRunner } from "../adapters/workspace/goal.checks"
import { FsGoalFiles } from "../adapters/workspace/goal.files"
import { writeFileAtomic } from "../adapters/workspace/atomic.write"
import { GOAL_DEBOUNCE_MS } from "../machines/goal/goal.gates"
import { GOAL_CONTINUE_MARKER } from "../services/goal/goal.brief"
import type { GoalContract } from "../services/goal/goal.contract"
import { type GoalSnapshot, defineGoalLifecycle } from "../services/goal/goal.lifecycle"
import { GoalLoop } from "../services/goal/goal.loop"
import type { GoalPrompter, SessionFacts } from "../services/goal/goal.ports"
import { GoalService } from "../services/goal/goal.service"
import type { Timers } from "../services/job/job.ports"
import type { Lifecycle } from "../services/lifecycle/lifecycle"
import type { Clock, Logger } from "../services/lifecycle/lifecycle.ports"
import type { GoalMachine } from "../machines/goal/goal.machine"
import { type ComposedRuntime, createForgeRuntime } from "../src/runtime"

/** The largest turn budget a contract may ask for: many cycles fit in one goal. */
export const GOAL_MAX_TURNS = 200
const GOAL_MAX_MINUTES = 480
/** A cycle that has not reached the prompter by then is a wrong answer, not a slow one. */
const CYCLE_TIMEOUT_MS = 10_000

/** One continuation cycle, in nanoseconds from the call of `loop.sessionIdle`. */
export interface CycleSample {
  /** `sessionIdle` resolved: the deadline committed and the timer requested. */
  idle: number
  /** The prompter was handed the brief. */
  brief: number
  /** The `loop.due` step committed (the document written, the snapshot and transition rows in the database). */
  committed: number
  /** The continuation turn the brief opened (1 = the goal's first). */
  turn: number
  /** The delay the loop asked the timers for (ms): the debounce, less what passed before it was asked. */
  delayMs: number
  /** Size of the goal document after the cycle (bytes). */
  documentBytes: number
}

/** The same cycle's bare I/O, each part timed on its own (nanoseconds). */
export interface BareSample {
  commit: number
  read: number
  write: number
  secondCommit: number
}

interface Sent {
  at: bigint
  sessionId: string
  text: string
}

interface RequestedTimer {
  fn: () => void
  ms: number
  cancelled: boolean
}

/** Real time plus every delay the bench skipped: the machine sees the debounce pass, the bench never sleeps it. */
class SkippingClock implements Clock {
  skippedMs = 0
  now(): number {
    return Date.now() + this.skippedMs
  }
}

export interface LoopBench {
  sessions: readonly string[]
  /** One cycle of the session's goal: activity (untimed), then sessionIdle → timer → fire → brief → commit. */
  cycle(session: string): Promise<CycleSample>
  /** The bare I/O of one cycle on the session's goal: commit, read, atomic write, commit. */
  bare(session: string): Promise<BareSample>
  /** Goals written so far (20 at the start, one more each time a goal's turns ran out). */
  goalsWritten(): number
  errors: string[]
  problems: string[]
  close(): Promise<void>
}

function contract(session: string, generation: number): GoalContract {
  return {
    objective: `keep the parser suite green in ${session} (generation ${generation})`,
    success: ["zero failing tests", "the changelog names the fix"],
    checks: [
      { kind: "command", command: "npm test", timeoutS: 120 },
      { kind: "contains", file: "CHANGELOG.md", text: "## Unreleased" },
    ],
    constraints: ["no dependency bumps"],
    nonGoals: ["rewriting the tokenizer"],
    budgets: { maxTurns: GOAL_MAX_TURNS, maxMinutes: GOAL_MAX_MINUTES },
  }
}

function deferred<T>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve: (value: T) => void = () => undefined
  const promise = new Promise<T>((r) => {
    resolve = r
  })
  return { promise, resolve }
}

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing after ${CYCLE_TIMEOUT_MS} ms`)), CYCLE_TIMEOUT_MS)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

const elapsed = (from: bigint, to: bigint): number => Number(to - from)

/** The loop over the workspace's real runtime, with `sessions` goals armed by the user, one per session. */
export async function createLoopBench(workspace: string, sessionCount: number): Promise<LoopBench> {
  const errors: string[] = []
  const problems: string[] = []
  const ignore = (): void => undefined
  const log: Logger = { info: ignore, warn: (m) => void errors.push(`warn: ${m}`), error: (m) => void errors.push(`error: ${m}`) }
  const clock = new SkippingClock()
  const runtime: ComposedRuntime = await createForgeRuntime({ workspace, clock, log })

  const requested: RequestedTimer[] = []
  const timers: Timers = {
    setTimeout(fn, ms) {
      const timer = { fn, ms, cancelled: false }
      requested.push(timer)
      return {
        cancel() {
          timer.cancelled = true
        },
      }
    },
  }
  let onBrief: ((sent: Sent) => void) | undefined
  const sent: Sent[] = []
  const prompter: GoalPrompter = {
    async send(sessionId, text) {
      const brief = { at: process.hrtime.bigint(), sessionId, text }
      sent.push(brief)
      onBrief?.(brief)
    },
  }
  const facts: SessionFacts = {
    speaker: async () => "forge",
    spend: async () => ({ cost: 0, tokens: 0 }),
    hasDraftPlan: async () => false,
    isIdle: async () => true,
  }

  // As src/goal/goal.lazy.ts composes it, with the scripted world above.
  const files = new FsGoalFiles(workspace)
  const lifecycle: Lifecycle<GoalMachine> = defineGoalLifecycle(runtime.host, { files, clock, prompter, log })
  const service = new GoalService({
    lifecycle,
    files,
    clock,
    log,
    checks: createGoalCheckRunner({ workspace, logDir: path.join(workspace, "check-logs") }),
    hasDraftPlan: (sessionId) => runtime.plans.hasDraft(sessionId),
  })
  // The only process on the bench's workspace: its claims are its own.
  const claims = new DriverClaims({ store: async () => undefined, identity: { me: "bench", isAlive: () => true }, clock, log })
  const loop = new GoalLoop({ lifecycle, clock, timers, facts, claims, log })

  const sessions = Array.from({ length: sessionCount }, (_, i) => `ses_bench_goal_${String(i + 1).padStart(2, "0")}`)
  const generations = new Map<string, number>()
  let written = 0
  const arm = async (session: string): Promise<void> => {
    const generation = (generations.get(session) ?? 0) + 1
    generations.set(session, generation)
    const outcome = await service.write(session, contract(session, generation), { by: "user" })
    written++
    if (!outcome.output.startsWith("Goal armed")) throw new Error(`${session}: the goal was not armed: ${outcome.output}`)
  }
  for (const session of sessions) await arm(session)

  /** The session's goal, ready to drive: a goal whose turns ran out is discarded and a fresh one armed (untimed). */
  const readyGoal = async (session: string): Promise<GoalSnapshot> => {
    let goal = service.liveFor(session)
    if (goal !== undefined && goal.context.turnsUsed >= GOAL_MAX_TURNS) {
      await service.discard(session, { by: "user" }, "its turns ran out: the bench arms the next one")
      await arm(session)
      goal = service.liveFor(session)
    }
    if (goal === undefined || !goal.matches({ active: "working" })) {
      throw new Error(`${session}: no goal working (${goal === undefined ? "none" : JSON.stringify(goal.value)})`)
    }
    return goal
  }

  const documentOf = (goalPath: string): string => readFileSync(path.join(workspace, goalPath), "utf8")

  return {
    sessions,
    errors,
    problems,
    goalsWritten: () => written,

    async cycle(session) {
      const goal = await readyGoal(session)
      const { goalPath } = goal.context
      const turn = goal.context.turnsUsed + 1
      // Progress in the turn, so the no-progress rule never pauses the goal (not timed: a tool call's business).
      await loop.activity(session, "writes")
      requested.length = 0
      const brief = deferred<Sent>()
      onBrief = brief.resolve
      const committed = lifecycle.waitFor(goalPath, (s) => s.context.turnsUsed === turn && !s.hasTag("due"))

      const start = process.hrtime.bigint()
      await loop.sessionIdle(session)
      const idle = process.hrtime.bigint()
      const live = requested.filter((t) => !t.cancelled)
      const timer = live[0]
      if (timer === undefined || live.length !== 1) throw new Error(`${session}: sessionIdle asked for ${live.length} live timer(s), expected 1`)
      const dueAt = lifecycle.snapshot(goalPath)?.context.dueAt ?? null
      // The timer fires now; the clock skips the delay it asked for, so the machine finds the deadline passed.
      clock.skippedMs += timer.ms
      timer.fn()
      const handed = await withTimeout(brief.promise, `${goalPath} turn ${turn}: the brief`)
      const after = await withTimeout(committed, `${goalPath} turn ${turn}: the loop.due commit`)
      const done = process.hrtime.bigint()
      onBrief = undefined

      if (handed.sessionId !== session) problems.push(`${goalPath} turn ${turn}: the brief went to ${handed.sessionId}, not ${session}`)
      if (!handed.text.startsWith(`${GOAL_CONTINUE_MARKER} Goal ${goalPath} — continuation turn ${turn} of ${GOAL_MAX_TURNS}`)) {
        problems.push(`${goalPath} turn ${turn}: the prompter got something else than the turn's brief: ${handed.text.slice(0, 120)}`)
      }
      if (timer.ms <= 0 || timer.ms > GOAL_DEBOUNCE_MS) problems.push(`${goalPath} turn ${turn}: the loop asked for a ${timer.ms} ms timer`)
      if (dueAt === null) problems.push(`${goalPath} turn ${turn}: no deadline after session.idle`)
      if (!after.matches({ active: "working" })) problems.push(`${goalPath} turn ${turn}: after the cycle the goal is ${JSON.stringify(after.value)}`)
      const document = documentOf(goalPath)
      if (!document.includes(`turns_used: ${turn}\n`)) problems.push(`${goalPath} turn ${turn}: the document does not say turns_used: ${turn}`)
      return {
        idle: elapsed(start, idle),
        brief: elapsed(start, handed.at),
        committed: elapsed(start, done),
        turn,
        delayMs: timer.ms,
        documentBytes: Buffer.byteLength(document),
      }
    },

    async bare(session) {
      const goal = service.liveFor(session)
      if (goal === undefined) throw new Error(`${session}: no live goal for the baseline`)
      const { goalPath } = goal.context
      const record = await runtime.repository.getSnapshot("goal", goalPath)
      if (record === undefined) throw new Error(`${goalPath}: no record in the database`)
      // The goal's own record and document, written under a machine and a folder no lifecycle reads.
      const instanceId = `bare:${session}`
      const target = path.join(workspace, "bench-bare", `${session}.md`)
      const text = documentOf(goalPath)
      const row = (at: number) => ({ ...record, machineId: "bench-bare", instanceId, exclusiveKey: null, updatedAt: at })
      const transition = (at: number, event: string) => ({ machineId: "bench-bare", instanceId, sessionId: session, from: "a", event, to: "b", at })

      let t = process.hrtime.bigint()
      const mark = (): number => {
        const now = process.hrtime.bigint()
        const ns = elapsed(t, now)
        t = now
        return ns
      }
      await runtime.repository.commit(row(clock.now()), transition(clock.now(), "session.idle"))
      const commit = mark()
      const current = await readFile(path.join(workspace, goalPath), "utf8")
      const read = mark()
      if (current.length === 0) problems.push(`${goalPath}: the baseline read an empty document`)
      await writeFileAtomic(target, text)
      const write = mark()
      await runtime.repository.commit(row(clock.now()), transition(clock.now(), "loop.due"))
      const secondCommit = mark()
      return { commit, read, write, secondCommit }
    },

    async close() {
      loop.dispose()
      await runtime.close()
    },
  }
}
