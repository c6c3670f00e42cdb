import type { SnapshotFrom } from "xstate"
import { type DriverFacts, soleDriver } from "../../machines/driver.claim"
import type { JobEvent, JobHost, JobMachine } from "../../machines/job/job.machine"
import { explainJobRefusal } from "../../machines/job/job.refusals"
import { stateToString } from "../../machines/state.text"
import type { DriverClaims } from "../lifecycle/driver.claim"
import type { Lifecycle } from "../lifecycle/lifecycle"
import { LifecycleHost } from "../lifecycle/lifecycle.host"
import type { Clock, LifecycleRepository, Logger } from "../lifecycle/lifecycle.ports"
import { JOB_CLAIMS } from "./job.claims"
import { defineJobLifecycle } from "./job.lifecycle"
import { drivenByHost } from "./job.restore"

// A workspace's jobs seen from outside every opencode process (`forgecharts jobs`): the records read through the job
// lifecycle on a host of their own (checked and brought up to date, as a restore reads them), and a kill or a clear
// recorded into the job's machine as Forge's own records it. Whether this process may record it is the machine's
// driver gate, asked with the job's driver claim as read: a job whose opencode process still runs is that process's to
// record (it sees the exit), as is one another live process has claimed.

export interface OutsideJobsDeps {
  repository: LifecycleRepository
  /** The workspace's driver claims, held as this process while it records. */
  claims: DriverClaims
  /** Whether a job's opencode process still runs (the same pid and start time). */
  isHostAlive: (host: JobHost) => boolean
  clock: Clock
  log: Logger
}

/**
 * What recording an event from outside did: the state it was recorded as, or null with why not and which gate said so
 * (`driver`: another live process drives the job; `state`: the job's record takes no such event now, from anyone).
 */
export type OutsideRecord = { recorded: string; note: string } | { recorded: null; note: string; refusedBy: "driver" | "state" | "race" }

export class OutsideJobs {
  /** Every readable job record, finished ones included, in the order of their ids (which begin with their start time). */
  readonly jobs: SnapshotFrom<JobMachine>[] = []
  /** Job records that cannot be read, with why. */
  readonly damaged: { id: string; problem: string }[] = []

  private constructor(
    private readonly deps: OutsideJobsDeps,
    private readonly lifecycle: Lifecycle<JobMachine>,
  ) {}

  static async open(deps: OutsideJobsDeps): Promise<OutsideJobs> {
    const host = new LifecycleHost({ repository: async () => deps.repository, clock: deps.clock, log: deps.log })
    // The effects a kill or a clear could ask of the machine: neither does (a kill after a pattern match and a wake are
    // an opencode process's), so they are refused if ever asked.
    const lifecycle = defineJobLifecycle(host, {
      processes: { killTree: async () => Promise.reject(new Error("a job seen from outside opencode starts no kill through its machine")) },
      clock: deps.clock,
      killed: () => {},
      wake: () => {},
    })
    const outside = new OutsideJobs(deps, lifecycle)
    const onDamaged = (d: { instanceId: string; problem: string }) => outside.damaged.push({ id: d.instanceId, problem: d.problem })
    for (const record of await deps.repository.loadSnapshots({ machineId: lifecycle.machine.id, includeTerminal: true, onDamaged })) {
      const restored = lifecycle.restore(record)
      if (restored.kind === "unfit") outside.damaged.push({ id: record.instanceId, problem: restored.problem })
      else outside.jobs.push(restored.snapshot)
    }
    return outside
  }

  /**
   * Records the kill (or clear) into the job's machine when its driver gate lets this process drive the job: the
   * claim is taken in one write transaction, the step lands only on the record as read, and the claim is let go.
   */
  async record(jobId: string, type: "job.kill" | "job.clear"): Promise<OutsideRecord> {
    const before = this.lifecycle.snapshot(jobId)
    if (before === undefined) return { recorded: null, note: `no record of job ${jobId}`, refusedBy: "state" }
    const { host } = before.context
    const at = this.deps.clock.now()
    // A job's live opencode process drives it as a live claim would, whatever the claim row says.
    const eventFor = (claim: DriverFacts): JobEvent => {
      const driver = this.deps.isHostAlive(host) ? drivenByHost(claim, host) : claim
      return type === "job.kill" ? { type, at, driver } : { type, driver }
    }
    let event = eventFor(soleDriver())
    const may = (facts: DriverFacts) => {
      event = eventFor(facts)
      return this.lifecycle.can(jobId, event)
    }
    const { taken } = await this.deps.claims.drive(JOB_CLAIMS, jobId, may)
    if (!taken) {
      // The host's own event (no driver facts) taken where this one is not: the driver gate refused.
      const own: JobEvent = type === "job.kill" ? { type, at } : { type }
      return { recorded: null, note: explainJobRefusal(before, event), refusedBy: this.lifecycle.can(jobId, own) ? "driver" : "state" }
    }
    try {
      const after = await this.lifecycle.claim(jobId, event)
      if (after === undefined)
        return { recorded: null, note: "an opencode process took the job up meanwhile; it records what happens to it", refusedBy: "race" }
      return { recorded: stateToString(after.value), note: `recorded as ${stateToString(before.value)} --${type}--> ${stateToString(after.value)}` }
    } finally {
      await this.deps.claims.release(JOB_CLAIMS, jobId)
    }
  }
}
