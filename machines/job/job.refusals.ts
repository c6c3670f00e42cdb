import type { SnapshotFrom } from "xstate"
import { drivenElsewhereText } from "../driver.claim"
import type { JobEvent, jobMachine } from "./job.machine"
import { stateToString } from "../state.text"

type JobSnapshot = SnapshotFrom<typeof jobMachine>

// When `snapshot.can(event)` says no, these texts say which gate refused and how to get past it.
// They describe the machine's decision; they never make it.

export function explainJobRefusal(snapshot: JobSnapshot, event: JobEvent): string {
  const job = `job ${snapshot.context.jobId}`
  const state = stateToString(snapshot.value)
  const starting = snapshot.matches("starting")
  const running = snapshot.hasTag("alive")
  // The driver gate first: a restore's event carries the claim it was decided on.
  const driver = "driver" in event && event.driver !== undefined ? drivenElsewhereText(job, event.driver) : null
  if (driver !== null) return `job driver gate: ${driver}`
  if (snapshot.status === "done") {
    if (event.type === "job.kill") return `${job} has already finished; nothing to kill.`
    return `${job} has finished (${state}): it takes no further events. forge_jobs list shows the jobs still known.`
  }
  switch (event.type) {
    case "job.spawned":
    case "job.spawnFailed":
      return `${job} started already (${state}): only a job being spawned takes its spawn's outcome.`
    case "job.kill":
      return `${job} is still being spawned: kill it once forge_shell has returned its id.`
    case "job.poll":
    case "job.clear":
      return starting || running ? `${job} is still running: poll it, or kill it first.` : `${job} does not take ${event.type} while ${state}.`
    case "job.wake.delivered":
      return `${job} owes no wake (${state}): a wake is owed only once a job nobody waits on has ended.`
    case "job.output":
    case "job.exit":
      return starting ? `${job} has no process yet (${state}): it takes output and its exit once spawned.` : `${job} has ended (${state}).`
    case "job.tick":
      return `${job}: nobody waits on it (${state}), so no deadline runs.`
    case "job.adopt":
    case "job.orphan":
      return `${job} is ${state}: only a job a dead host left running (or, for an adoption, its finished result still owed) is taken over.`
  }
}

/** Why the birth gate refused a job (the machine's first step ended in `refused`): the survivor cap, and the way past it. */
export function explainJobBirthRefusal(snapshot: JobSnapshot): string {
  const { birth } = snapshot.context
  const wayPast = "stop some (forge_jobs kill) before starting another that outlives the host."
  // Only a job asked for now meets the gate, with the facts read for it: null (an older record) is never refused.
  if (birth === null) return `forge_shell: the survive jobs already running are at the survivor cap; ${wayPast}`
  const running = birth.liveSurvivors === 1 ? "1 survive job is" : `${birth.liveSurvivors} survive jobs are`
  return `forge_shell: ${running} already running (survivor cap: ${birth.maxSurvivors}); ${wayPast}`
}
