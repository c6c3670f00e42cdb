import { describe, expect, it } from "vitest"
import { type SnapshotFrom, getNextSnapshot, initialTransition } from "xstate"
import type { DriverFacts } from "../../../machines/driver.claim"
import { type JobEvent, type JobInput, jobMachine } from "../../../machines/job/job.machine"
import { explainJobRefusal } from "../../../machines/job/job.refusals"
import { stateToString } from "../../../machines/state.text"
import { JOB_T0, jobInput } from "./job.fixtures"

type Snapshot = SnapshotFrom<typeof jobMachine>

const T0 = JOB_T0
const input: JobInput = { ...jobInput, survive: true }
const free: DriverFacts = { me: "b", claim: null, holderAlive: false, now: T0 }
const heldByLive: DriverFacts = { me: "b", claim: { holder: "c", until: T0 + 5_000 }, holderAlive: true, now: T0 }
const spawned: JobEvent = { type: "job.spawned", pid: 4242, at: T0 }
const exit0: JobEvent = { type: "job.exit", code: 0, signal: null, at: T0 + 200_000 }

function reach(...events: JobEvent[]): Snapshot {
  let [snapshot] = initialTransition(jobMachine, input)
  for (const event of events) {
    expect(snapshot.can(event), `${event.type} from ${stateToString(snapshot.value)}`).toBe(true)
    snapshot = getNextSnapshot(jobMachine, snapshot, event)
  }
  return snapshot
}

const states: Record<string, Snapshot> = {
  starting: reach(),
  running: reach(spawned),
  succeededByPattern: reach(spawned, { type: "job.output", at: T0 + 1, matched: true }),
  earlyReturned: reach(spawned, { type: "job.tick", now: T0 + 60_000 }),
  "exited.wakePending": reach(spawned, { type: "job.tick", now: T0 + 60_000 }, exit0),
  "exited.unread": reach(spawned, { type: "job.tick", now: T0 + 60_000 }, exit0, { type: "job.wake.delivered" }),
  killed: reach(spawned, { type: "job.kill", at: T0 + 1 }),
  orphaned: reach(spawned, { type: "job.orphan", at: T0 + 1, driver: free }),
  cleared: reach(spawned, exit0),
}
const host = { pid: 200, startedAt: T0, instance: "b" }
const events: JobEvent[] = [
  spawned,
  { type: "job.spawnFailed", error: "spawn /bin/bash ENOENT", at: T0 },
  { type: "job.output", at: T0 + 2, matched: false },
  { type: "job.tick", now: T0 + 1 },
  exit0,
  { type: "job.kill", at: T0 + 3 },
  { type: "job.poll" },
  { type: "job.wake.delivered" },
  { type: "job.clear" },
  { type: "job.adopt", at: T0 + 4, host, driver: free },
  { type: "job.orphan", at: T0 + 4, driver: free },
  { type: "job.adopt", at: T0 + 4, host, driver: heldByLive },
  { type: "job.orphan", at: T0 + 4, driver: heldByLive },
]

describe("explainJobRefusal: what the job machine refused, in words", () => {
  it("every refusal in every state names the job and what it is doing", () => {
    let refusals = 0
    for (const [name, snapshot] of Object.entries(states)) {
      expect(stateToString(snapshot.value)).toBe(name)
      for (const event of events) {
        if (snapshot.can(event)) continue
        refusals++
        const text = explainJobRefusal(snapshot, event)
        expect(text, `${event.type} in ${name}`).toContain("job job_1")
        expect(text, `${event.type} in ${name}`).not.toMatch(/undefined|null|\[object/)
      }
    }
    expect(refusals).toBeGreaterThan(60)
  })

  it("a kill says whether the job is not spawned yet or already over", () => {
    const kill: JobEvent = { type: "job.kill", at: T0 + 3 }
    expect(explainJobRefusal(states.starting as Snapshot, kill)).toBe("job job_1 is still being spawned: kill it once forge_shell has returned its id.")
    for (const over of ["killed", "orphaned", "cleared"])
      expect(explainJobRefusal(states[over] as Snapshot, kill)).toBe("job job_1 has already finished; nothing to kill.")
  })

  it("a clear or poll of a job that still runs says to poll or kill it first", () => {
    for (const live of ["running", "succeededByPattern", "earlyReturned"])
      expect(explainJobRefusal(states[live] as Snapshot, { type: "job.clear" })).toBe("job job_1 is still running: poll it, or kill it first.")
  })

  it("a restore refused by the driver gate names the live process that drives the job", () => {
    const text = explainJobRefusal(states.earlyReturned as Snapshot, { type: "job.adopt", at: T0 + 4, host, driver: heldByLive })
    expect(text).toMatch(/^job driver gate: job job_1 is driven by another opencode process \(c\), which still runs/)
    // A finished job answers for being finished, whoever holds its claim.
    expect(explainJobRefusal(states.killed as Snapshot, { type: "job.orphan", at: T0 + 4, driver: free })).toContain("has finished (killed)")
  })

  it("a wake delivered for a job that owes none says when one is owed", () => {
    expect(explainJobRefusal(states["exited.unread"] as Snapshot, { type: "job.wake.delivered" })).toContain("owes no wake (exited.unread)")
  })
})
