import { isDeepStrictEqual } from "node:util"
import { describe, expect, it } from "vitest"
import { type Actor, type SnapshotFrom, createActor, transition } from "xstate"
import { createTestModel } from "xstate/graph"
import { type JobEvent, type JobInput, jobMachine } from "../../machines/job.machine"
import { type JobRecord, expectedJobAfter, expectedJobTags, initialJobRecord, isFinalPlace, jobRecordOf } from "./job.reference"
import { pathName } from "./path.name"

// Paths generated from the job machine: shortest paths to every (state, context) reached by the event cases below,
// each extended by every event case, so refused events and targetless updates are covered too. At every step the
// machine (and a live actor restored from its persisted JSON) must agree with the reference rules in job.reference.ts.

type Snapshot = SnapshotFrom<typeof jobMachine>

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
}

const configs: { name: string; input: JobInput }[] = [
  { name: "foreground, pattern, notify, survive", input: base },
  { name: "foreground, no pattern, no notify", input: { ...base, hasPattern: false, notify: false, survive: false } },
  { name: "background, notify", input: { ...base, background: true, hasPattern: false } },
]

// Spawned at 0; idle deadline 1000 from the start, 1500 after output at 500, 3000 after output at 2000; max wait 2500.
const eventCases: JobEvent[] = [
  { type: "job.spawned", pid: 4242, at: 0 },
  { type: "job.spawnFailed", error: "spawn /bin/bash ENOENT", at: 0 },
  { type: "job.output", at: 500, matched: false },
  { type: "job.output", at: 500, matched: true },
  { type: "job.output", at: 2_000, matched: false },
  { type: "job.tick", now: 999 },
  { type: "job.tick", now: 1_000 },
  { type: "job.tick", now: 1_499 },
  { type: "job.tick", now: 1_500 },
  { type: "job.tick", now: 2_499 },
  { type: "job.tick", now: 2_500 },
  { type: "job.tick", now: 3_000 },
  { type: "job.exit", code: 0, signal: null, at: 2_600 },
  { type: "job.exit", code: 1, signal: null, at: 2_600 },
  { type: "job.exit", code: null, signal: "SIGTERM", at: 2_600 },
  { type: "job.kill", at: 2_700 },
  { type: "job.poll" },
  { type: "job.wake.delivered" },
  { type: "job.clear" },
  { type: "job.adopt", at: 5_000, host: { pid: 200, startedAt: 4_000, instance: "b" } },
  { type: "job.orphan", at: 5_000 },
]

/** Compares one step with the reference (acceptance, record, tags, status); returns the record to continue from. */
function checkStep(input: JobInput, before: Snapshot, record: JobRecord, event: JobEvent, after: Snapshot): JobRecord {
  const expected = expectedJobAfter(input, record, event)
  const actual = jobRecordOf(after)
  const handled = before.can(event)
  if (handled !== expected.handled || !isDeepStrictEqual(actual, expected.record)) {
    const detail = `${JSON.stringify(event)} from ${record.place}: machine ${JSON.stringify({ handled, record: actual })}, reference ${JSON.stringify(expected)}`
    expect.fail(`the machine and the reference disagree: ${detail}`)
  }
  expect(after.tags, `tags in ${actual.place}`).toEqual(new Set(expectedJobTags(actual.place)))
  expect(after.status, `status in ${actual.place}`).toBe(isFinalPlace(actual.place) ? "done" : "active")
  return expected.record
}

/** The system under test: a live actor that is persisted to JSON and restored after every step. */
class RestoredJobActor {
  private actor: Actor<typeof jobMachine>
  constructor(private readonly input: JobInput) {
    this.actor = createActor(jobMachine, { input }).start()
  }
  send(event: JobEvent): void {
    // A finished actor is stopped; the model says nothing changes, which the state check confirms.
    if (this.actor.getSnapshot().status === "active") this.actor.send(event)
  }
  agreesWith(model: Snapshot): void {
    const live = this.actor.getSnapshot()
    expect(live.value).toEqual(model.value)
    expect(live.context).toEqual(model.context)
    const persisted: unknown = JSON.parse(JSON.stringify(this.actor.getPersistedSnapshot()))
    this.actor.stop()
    this.actor = createActor(jobMachine, { input: this.input, snapshot: persisted as Snapshot }).start()
    expect(this.actor.getSnapshot().value).toEqual(model.value)
    expect(this.actor.getSnapshot().context).toEqual(model.context)
  }
  stop(): void {
    this.actor.stop()
  }
}

const models = configs.map(({ name, input }) => {
  const paths = createTestModel(jobMachine, { input, events: eventCases }).getShortestPaths({ limit: 20_000 })
  return { name, input, paths }
})

/** Replays one path and its extensions through the reference alone (pure, no actor). */
function walk(input: JobInput, path: (typeof models)[number]["paths"][number]): void {
  let record = initialJobRecord(input)
  const initial = path.steps[0]!.state
  expect(jobRecordOf(initial)).toEqual(record)
  expect(initial.tags).toEqual(new Set(expectedJobTags(record.place)))
  for (let i = 1; i < path.steps.length; i++) {
    const step = path.steps[i]!
    record = checkStep(input, path.steps[i - 1]!.state, record, step.event as JobEvent, step.state)
  }
  for (const event of eventCases) checkStep(input, path.state, record, event, transition(jobMachine, path.state, event)[0])
}

for (const { name, input, paths } of models) {
  describe(`job machine paths (${name})`, () => {
    it("reaches every state the configuration allows", () => {
      const reached = new Set(paths.flatMap((p) => p.steps.map((s) => JSON.stringify(s.state.value))))
      const expected: unknown[] = ["starting", "earlyReturned", { exited: "unread" }, "killed", "orphaned", "cleared"]
      if (!input.background) expected.push("running")
      if (input.hasPattern) expected.push("succeededByPattern")
      if (input.notify) expected.push({ exited: "wakePending" })
      for (const value of expected) expect(reached).toContain(JSON.stringify(value))
    })

    for (const path of paths) {
      it(pathName(path.state.value, path.steps), async () => {
        walk(input, path)
        // The same path through a live actor, persisted to JSON and restored after every step.
        const sut = new RestoredJobActor(input)
        try {
          await path.test({
            events: Object.fromEntries(eventCases.map((e) => [e.type, (step: { event: { type: string } }) => sut.send(step.event as JobEvent)])),
            states: { "*": (state) => sut.agreesWith(state) },
          })
        } finally {
          sut.stop()
        }
      })
    }
  })
}
