// The lifecycles the status bench's workspace holds: for the n-th instance, a machine (plan, goal, crew, loop or job),
// a valid input and a short run of events, stepped as the host steps them (`initialStep`/`step`, pure: no effect runs)
// and written as the host writes them (`snapshotRecordOf`: the machine's persisted snapshot, its state text, session,
// document and exclusive key), one snapshot and transition row per step. Each run names the state it must end in: a
// machine that no longer takes a run fails the setup, never a figure.
import type { AnyStateMachine, EventFromLogic, SnapshotFrom } from "xstate"
import type { CrewEvent, CrewInput } from "../machines/crew/crew.machine"
import { crewMachine } from "../machines/crew/crew.machine"
import type { GoalEvent, GoalInput } from "../machines/goal/goal.machine"
import { goalMachine } from "../machines/goal/goal.machine"
import { MAX_SURVIVORS } from "../machines/job/job.gates"
import { type JobEvent, type JobInput, jobMachine } from "../machines/job/job.machine"
import type { LoopHandoff } from "../machines/loop/loop.gates"
import { type LoopEvent, type LoopStartInput, loopMachine } from "../machines/loop/loop.machine"
import { type PlanEvent, type PlanInput, planMachine } from "../machines/plan/plan.machine"
import { snapshotStateText } from "../machines/state.text"
import { liveCrewKey } from "../services/crew/crew.lifecycle"
import { liveGoalKey } from "../services/goal/goal.lifecycle"
import type { InstanceMeta, LifecycleDefinition } from "../services/lifecycle/lifecycle.definition"
import type { StepWrite } from "../services/lifecycle/lifecycle.ports"
import { snapshotRecordOf } from "../services/lifecycle/lifecycle.record"
import { NO_STATE } from "../services/lifecycle/shared.records"
import { accepts, initialStep, step } from "../services/lifecycle/lifecycle.step"
import { livePlanKey } from "../services/plan/plan.lifecycle"

/** One instance's life: what it is born from, the events it takes, where they must leave it, and its document's text. */
export interface LifecycleRun {
  machine: string
  instanceId: string
  steps: StepWrite[]
  /** Workspace-relative path and text of its document (plans, goals, crews), or null. */
  document: { path: string; text: string } | null
  /** Whether a process must drive it (a live goal or loop): the bench gives half of those a driver claim. */
  needsDriver: boolean
}

/** Just what `snapshotRecordOf` reads of a definition: the machine and how its meta is read out of a snapshot. */
function definition<M extends AnyStateMachine>(machine: M, metaOf: (snapshot: SnapshotFrom<M>) => InstanceMeta): LifecycleDefinition<M> {
  return { machine, metaOf, implementations: { actions: {} }, explain: () => "" }
}

const PLAN = definition(planMachine, (s) => ({
  sessionId: s.context.sessionId,
  document: s.context.planPath,
  exclusiveKey: livePlanKey(s.context.sessionId, s.hasTag("live")),
}))
const GOAL = definition(goalMachine, (s) => ({
  sessionId: s.context.sessionId,
  document: s.context.goalPath,
  exclusiveKey: liveGoalKey(s.context.sessionId, s.hasTag("live")),
}))
const CREW = definition(crewMachine, (s) => ({
  sessionId: s.context.sessionId,
  document: s.context.crewPath,
  exclusiveKey: liveCrewKey(s.context.sessionId, s.hasTag("live")),
}))
const LOOP = definition(loopMachine, (s) => ({ sessionId: s.context.hostSession, document: s.context.planPath }))
const JOB = definition(jobMachine, (s) => ({ sessionId: s.context.sessionId, document: null }))

/** Steps `input` through `events` as the host does, a row pair per step stamped by `clock`; throws if a step is refused. */
function walk<M extends AnyStateMachine>(
  def: LifecycleDefinition<M>,
  instanceId: string,
  input: unknown,
  events: readonly EventFromLogic<M>[],
  expected: string,
  clock: () => number,
): StepWrite[] {
  const write = (snapshot: unknown, from: string, event: string): StepWrite => {
    const record = snapshotRecordOf(def, instanceId, snapshot as SnapshotFrom<M>, clock())
    const { machineId, sessionId, state: to, updatedAt: at } = record
    return { snapshot: record, transition: { machineId, instanceId, sessionId, from, event, to, at } }
  }
  let { snapshot } = initialStep(def.machine, input)
  const steps = [write(snapshot, NO_STATE, "xstate.init")]
  for (const event of events) {
    const from = snapshotStateText(snapshot)
    if (!accepts(def.machine, snapshot, event)) throw new Error(`${def.machine.id} ${instanceId}: ${event.type} is refused in ${from}`)
    snapshot = step(def.machine, snapshot, event).snapshot
    steps.push(write(snapshot, from, event.type))
  }
  const reached = steps.at(-1)?.snapshot.state
  if (reached !== expected) throw new Error(`${def.machine.id} ${instanceId}: the run ends in ${reached}, expected ${expected}`)
  return steps
}

const T0 = Date.parse("2026-11-02T09:00:00.000Z")
const MINUTE = 60_000
const pick = <T>(list: readonly T[], n: number): T => list[n % list.length] as T
const TOPICS = ["login", "parser", "billing export", "search index", "rate limiter", "audit log", "CSV import", "dark mode", "webhooks", "SSO"]
const day = (n: number) => `2026-11-${String(1 + (n % 28)).padStart(2, "0")}`
const slug = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, "-")

function planRun(n: number, clock: () => number): LifecycleRun {
  const topic = pick(TOPICS, n)
  const planPath = `.opencode/plan/${day(n)}-${slug(topic)}-${n}.md`
  const taskTitles = Array.from(
    { length: 3 + (n % 6) },
    (_, i) => `${pick(["Write", "Test", "Wire", "Document"], i)} the ${topic} ${pick(["module", "handler", "migration", "CLI"], i + n)}`,
  )
  const criteria = [`The ${topic} works end to end`, "npm test passes", ...(n % 2 === 0 ? ["The docs say how to use it"] : [])]
  const tasks = taskTitles.map((_, i) => ({ number: i + 1, ticked: false }))
  const document = `---\nstatus: draft\n---\n# Plan: ${topic}\n\n## Goal\nShip the ${topic}.\n\n## Tasks\n${taskTitles.map((t, i) => `- [ ] ${i + 1}. ${t}`).join("\n")}\n\n## Acceptance Criteria\n${criteria.map((c) => `- ${c}`).join("\n")}\n`
  const input: PlanInput = { planPath, sessionId: `ses_plan_${n}`, tasks, criteria, document }
  const revise: PlanEvent = { type: "plan.revise", tasks, criteria, document }
  const approve: PlanEvent[] = [{ type: "plan.approve" }, { type: "dialog.allow", dialog: 1 }]
  const ticks: PlanEvent[] = tasks.map((t) => ({ type: "plan.tick", task: t.number }))
  const checks = criteria.map((criterion) => ({ criterion, pass: true, evidence: "npm test: 42 passed" }))
  const variants: [PlanEvent[], string][] = [
    [[revise], "draft.editing"],
    [[...approve, ...ticks.slice(0, 2)], "approved.working"],
    [[revise, ...approve, ...ticks, { type: "plan.close", checks }, { type: "dialog.allow", dialog: 2 }], "done"],
    [[{ type: "plan.discard", by: "user", reason: "went another way" }], "abandoned"],
  ]
  const [events, expected] = pick(variants, n)
  return {
    machine: "plan",
    instanceId: planPath,
    steps: walk(PLAN, planPath, input, events, expected, clock),
    document: { path: planPath, text: document },
    needsDriver: false,
  }
}

function goalRun(n: number, clock: () => number, now: number): LifecycleRun {
  const topic = pick(TOPICS, n + 3)
  const goalPath = `.opencode/goal/${day(n)}-${slug(topic)}-${n}.md`
  const success = [`The ${topic} works`, "The suite is green"]
  const document = `---\nstatus: queued\n---\n# Goal: ${topic}\n\n## Objective\nFinish the ${topic}.\n\n## Success\n${success.map((s) => `- ${s}`).join("\n")}\n`
  const sessionId = `ses_goal_${n}`
  const input: GoalInput = {
    goalPath,
    sessionId,
    contract: {
      objective: `Finish the ${topic}`,
      success,
      checks: [{ kind: "command", command: "npm test", timeoutS: 300 }],
      constraints: ["No new dependencies"],
      nonGoals: [],
    },
    limits: { maxTurns: 10 + (n % 3) * 10, maxMinutes: 120, maxCost: null, maxTokens: null },
    createdAt: now - 10 * MINUTE,
    document,
    birth: { armAsked: false, liveGoal: null },
  }
  const arm: GoalEvent[] = [
    { type: "goal.arm", sessionId, draftPlan: false },
    { type: "dialog.allow", dialog: 1, now },
  ]
  const variants: [GoalEvent[], string][] = [
    [[], "queued.waiting"],
    [[...arm, { type: "goal.activity", kind: "writes" }], "active.working"],
    [[...arm, { type: "session.idle", now }], "active.debouncing"],
    [[...arm, { type: "goal.pause", by: "user" }], "paused.stopped"],
    [[{ type: "goal.discard", by: "user", reason: "not needed" }], "abandoned"],
  ]
  const [events, expected] = pick(variants, n)
  return {
    machine: "goal",
    instanceId: goalPath,
    steps: walk(GOAL, goalPath, input, events, expected, clock),
    document: { path: goalPath, text: document },
    needsDriver: expected.startsWith("active"),
  }
}

function crewRun(n: number, clock: () => number, now: number): LifecycleRun {
  const topic = pick(TOPICS, n + 5)
  const crewPath = `.opencode/crew/${day(n)}-${slug(topic)}-${n}.md`
  const subtasks = Array.from({ length: 2 + (n % 4) }, (_, i) => ({
    title: `${pick(["Write", "Survey", "Test", "Review"], i)} the ${topic} part ${i + 1}`,
    agent: i % 2 === 0 ? "forge-coder" : null,
    files: i % 2 === 0 ? [`src/${slug(topic)}/part${i + 1}.ts`] : [],
  }))
  const record = `---\nstatus: pending\n---\n# Crew: ${topic}\n\n${subtasks.map((s) => `- ${s.title}`).join("\n")}\n`
  const input: CrewInput = {
    crewPath,
    sessionId: `ses_crew_${n}`,
    objective: `Ship the ${topic}`,
    subtasks,
    lineage: null,
    registration: { execution: null, governed: false },
    birth: { liveCrew: null, workers: { dispatchable: 2, findings: [] } },
    createdAt: now - 5 * MINUTE,
    record,
  }
  const report = subtasks.map((s) => ({ subtask: s.title, verdict: "PASS" as const, evidence: "tests pass", failures: [] }))
  const variants: [CrewEvent[], string][] = [
    [[], "pending.standby"],
    [[{ type: "crew.arm", governed: true }, { type: "crew.dispatch" }], "executing.working"],
    [
      [
        { type: "crew.arm", governed: true },
        { type: "crew.close", report, governed: true },
      ],
      "closed",
    ],
    [[{ type: "crew.abandon", reason: "wrong decomposition", governed: true }], "abandoned"],
  ]
  const [events, expected] = pick(variants, n)
  return {
    machine: "crew",
    instanceId: crewPath,
    steps: walk(CREW, crewPath, input, events, expected, clock),
    document: { path: crewPath, text: record },
    needsDriver: false,
  }
}

const CODED: LoopHandoff = {
  role: "coder",
  changes: [{ summary: "The section's module and its tests", reason: "the section asks for it" }],
  deviations: [],
  verification: [{ command: "npm test", cwd: "", outcome: "pass", changedAfter: false }],
  notes: "Error messages name the offending input.",
}
const BUG: LoopHandoff = {
  role: "auditor",
  findings: [{ severity: "bug", file: "src/index.ts", line: 12, description: "an empty input is accepted" }],
  summary: null,
  notes: null,
}

function loopRun(n: number, clock: () => number, now: number, planPath: string): LifecycleRun {
  const topic = pick(TOPICS, n + 7)
  const loopName = `${slug(topic)}-${n}`
  const input: LoopStartInput = {
    loopName,
    title: `Ship the ${topic}`,
    hostSession: `ses_loop_${n}`,
    planPath,
    planStatus: "approved",
    askedFrom: null,
    worktree: { dir: `/work/app/.opencode/forge/worktrees/${loopName}`, branch: `forge/loop/${loopName}`, base: "3f9c2a1e" },
    sections: Array.from({ length: 2 + (n % 3) }, (_, i) => ({
      title: `Phase ${i + 1}`,
      content: `Implement step ${i + 1} of the ${topic} in src/${slug(topic)}/step${i + 1}.ts, with its tests.`,
    })),
    maxIterations: 12,
    sandbox: { mode: "bwrap", network: false, problem: null },
    startedAt: now - 30 * MINUTE,
    driver: "4242:1000",
  }
  const pass = (session: string, handoff: LoopHandoff): LoopEvent[] => [
    { type: "loop.session.opened", session, driver: "4242:1000" },
    { type: "loop.handoff", session, handoff },
    { type: "loop.idle", session },
  ]
  const opened: LoopEvent = { type: "loop.session.opened", session: `ses_pass_${n}_1`, driver: "4242:1000" }
  const variants: [LoopEvent[], string][] = [
    [[opened], "running.coding.working"],
    [[...pass(`ses_pass_${n}_1`, CODED), { type: "loop.session.opened", session: `ses_pass_${n}_2`, driver: "4242:1000" }], "running.auditing.working"],
    [[...pass(`ses_pass_${n}_1`, CODED), ...pass(`ses_pass_${n}_2`, BUG)], "running.coding.opening"],
    [[opened, { type: "loop.fail", reason: "the pass's session could not be opened" }], "errored"],
    [[opened, { type: "loop.cancel", reason: "the user stopped it", session: null }], "cancelled"],
  ]
  const [events, expected] = pick(variants, n)
  return {
    machine: "loop",
    instanceId: loopName,
    steps: walk(LOOP, loopName, input, events, expected, clock),
    document: null,
    needsDriver: !["errored", "cancelled"].includes(expected),
  }
}

function jobRun(n: number, clock: () => number, now: number): LifecycleRun {
  const jobId = `job_${n.toString(36).padStart(4, "0")}`
  const command = pick(
    ["npm run dev", "npm test -- --watch", "cargo build --release", "python -m http.server 8000", "make -j4 all && ./scripts/smoke-test.sh --verbose"],
    n,
  )
  const background = n % 5 === 1
  const input: JobInput = {
    jobId,
    sessionId: `ses_job_${n % 40}`,
    command,
    cwd: "/work/app",
    logFile: `/tmp/forge/jobs/${jobId}.log`,
    idleMs: 60_000,
    maxWaitMs: 120_000,
    hasPattern: n % 2 === 0,
    keepAlive: true,
    background,
    notify: n % 3 !== 0,
    survive: false,
    // The host that ran it: an earlier opencode process, gone by now.
    host: { pid: 100_000 + n, startedAt: now - 60 * MINUTE, instance: `host${n % 7}` },
    birth: { liveSurvivors: 0, maxSurvivors: MAX_SURVIVORS },
  }
  const spawned: JobEvent = { type: "job.spawned", pid: 200_000 + n, at: now }
  const variants: [JobEvent[], string][] = [
    [[spawned, { type: "job.output", at: now + 1_000, matched: false }], "running"],
    [[spawned, { type: "job.output", at: now + 1_000, matched: false }, { type: "job.exit", code: 0, signal: null, at: now + 2_000 }], "cleared"],
    [[spawned, { type: "job.kill", at: now + 3_000 }], "killed"],
    [[spawned, { type: "job.exit", code: 1, signal: null, at: now + 2_000 }], "cleared"],
    [[spawned, { type: "job.tick", now: now + 70_000 }], "earlyReturned"],
  ]
  const [events, expected] = background ? [[spawned], "earlyReturned"] : pick(variants, n)
  return { machine: "job", instanceId: jobId, steps: walk(JOB, jobId, input, events as JobEvent[], expected, clock), document: null, needsDriver: false }
}

/** How many of every 20 instances each machine gets: plans and jobs most, as a workspace collects them. */
const MIX: readonly (readonly [string, number])[] = [
  ["plan", 6],
  ["goal", 4],
  ["crew", 3],
  ["loop", 3],
  ["job", 4],
]

/** `count` lifecycles over the five machines, their steps stamped one second apart from `T0`. */
export function lifecycleRuns(count: number): LifecycleRun[] {
  let tick = T0
  const clock = () => (tick += 1_000)
  const cycle = MIX.flatMap(([machine, share]) => Array.from({ length: share }, () => machine))
  const runs: LifecycleRun[] = []
  let lastPlan = ".opencode/plan/2026-11-01-login-0.md"
  const made = new Map<string, number>()
  for (let n = 0; n < count; n++) {
    const now = tick
    const machine = pick(cycle, n)
    // Its number among its machine's instances: ids and the variant it runs go by it.
    const i = made.get(machine) ?? 0
    made.set(machine, i + 1)
    const run =
      machine === "plan"
        ? planRun(i, clock)
        : machine === "goal"
          ? goalRun(i, clock, now)
          : machine === "crew"
            ? crewRun(i, clock, now)
            : machine === "loop"
              ? loopRun(i, clock, now, lastPlan)
              : jobRun(i, clock, now)
    if (run.machine === "plan") lastPlan = run.instanceId
    runs.push(run)
  }
  return runs
}
