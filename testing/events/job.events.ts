import type { SnapshotFrom } from "xstate"
import { MAX_SURVIVORS } from "../../machines/job/job.gates"
import { type JobEvent, type JobInput, jobMachine } from "../../machines/job/job.machine"
import type { ModelWorldByState } from "../model.world"

// The job's model world: five jobs (foreground or background, with a pattern or not, kept alive or not, and one a
// survive job the birth gate refuses at the survivor cap), and what the process, the clock, the caller and a restart
// can send each one. With keep_alive: false, the match's killAfterMatch effect feeds the kill back into the machine.

/** What a harness names its own way (Forge's model test passes its SUT's). */
export interface JobWorldOptions {
  /** The process a driver fact names when it starts beside the live host (its restore must leave the job). */
  neighbour?: string
}

const base: JobInput = {
  jobId: "job_model",
  sessionId: "ses_model",
  command: "npm run dev",
  cwd: "/work/app",
  logFile: "/tmp/forge/jobs/job_model.log",
  idleMs: 1_000,
  maxWaitMs: 2_500,
  hasPattern: true,
  keepAlive: true,
  background: false,
  notify: true,
  survive: true,
  host: { pid: 100, startedAt: 1, instance: "a" },
  birth: { liveSurvivors: 0, maxSurvivors: MAX_SURVIVORS },
}

const configs: { name: string; input: JobInput }[] = [
  { name: "foreground, pattern, notify, survive", input: base },
  { name: "foreground, pattern, no notify, no survive", input: { ...base, notify: false, survive: false } },
  { name: "background, notify", input: { ...base, background: true, hasPattern: false } },
  { name: "foreground, pattern, keep_alive false", input: { ...base, keepAlive: false, survive: false } },
  { name: "refused: a survive job at the survivor cap", input: { ...base, birth: { liveSurvivors: 0, maxSurvivors: 0 } } },
]

// Spawned at 0; idle deadline 1000 from the start, 1500 after output at 500, 3000 after output at 2000; max wait 2500.
// Ticks before a deadline (999) are refused; at or after one they release the caller for the deadline hit first.
const eventCases: JobEvent[] = [
  { type: "job.spawned", pid: 4242, at: 0 },
  { type: "job.spawnFailed", error: "spawn /bin/bash ENOENT", at: 0 },
  { type: "job.output", at: 500, matched: false },
  { type: "job.output", at: 500, matched: true },
  { type: "job.output", at: 2_000, matched: false },
  { type: "job.tick", now: 999 },
  { type: "job.tick", now: 1_000 },
  { type: "job.tick", now: 1_500 },
  { type: "job.tick", now: 2_500 },
  { type: "job.tick", now: 3_000 },
  { type: "job.exit", code: 1, signal: null, at: 2_600 },
  { type: "job.kill", at: 2_700 },
  { type: "job.poll" },
  { type: "job.wake.delivered" },
  { type: "job.clear" },
]
// The restoring host reads the job's claim as nobody's (the dead host held none); a live holder is the unit tests' case.
const driver = { me: "b", claim: null, holderAlive: false, now: 5_000 }
const adopt: JobEvent = { type: "job.adopt", at: 5_000, host: { pid: 200, startedAt: 4_000, instance: "b" }, driver }
const orphan: JobEvent = { type: "job.orphan", at: 5_000, driver }

export function jobModel({ neighbour = "(a process started beside the live host)" }: JobWorldOptions = {}): ModelWorldByState<typeof jobMachine> {
  // A process started beside the live host reads the job as driven by it: the driver gate leaves the job there, to
  // a restore and to a kill or a clear from outside opencode (`forgecharts jobs`) alike.
  const besideHost = { me: neighbour, claim: { holder: "(the live host)", until: Number.MAX_SAFE_INTEGER }, holderAlive: true, now: 5_000 }
  const beside: JobEvent[] = [
    { type: "job.adopt", at: 5_000, host: { pid: 400, startedAt: 7_000, instance: "n" }, driver: besideHost },
    { type: "job.orphan", at: 5_000, driver: besideHost },
    { type: "job.kill", at: 5_000, driver: besideHost },
    { type: "job.clear", driver: besideHost },
  ]
  const besideStart: JobEvent = { type: "job.spawnFailed", error: "the host stopped before the job started", at: 0, driver: besideHost }

  /**
   * What the world can produce in a state. A restart (the host died, the next one restores) finds a job that never
   * started and fails it, so adopt and orphan follow the spawn; only a survive job is ever adopted.
   */
  function eventsIn(state: SnapshotFrom<typeof jobMachine>): JobEvent[] {
    // A job refused at birth never existed: the host has no record of it to restore, only calls that find nothing.
    if (state.value === "refused") return eventCases
    if (state.value === "starting") return [...eventCases, besideStart]
    // keep_alive false: the match's killAfterMatch effect feeds the kill back at once; nothing else can happen first.
    if (state.value === "succeededByPattern" && !state.context.keepAlive) return [{ type: "job.kill", at: state.context.lastActivityAt ?? 0 }]
    return [...eventCases, ...(state.context.survive ? [adopt] : []), orphan, ...beside]
  }

  return {
    machine: jobMachine,
    configs,
    events: eventsIn,
    // Only a waiting caller's guards read context that paths change (the last output time); elsewhere the guards read
    // the input alone, and whether the job was adopted changes what a restart does.
    extensionKey: ({ value, context }) => JSON.stringify([value, value === "running" ? context.lastActivityAt : null, context.previousRun]),
  }
}
