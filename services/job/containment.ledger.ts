import type { Clock, Logger } from "../lifecycle/lifecycle.ports"
import type { JobLedger } from "./job.ledger"
import type { JobProcesses } from "./job.ports"

// Which containment a host's jobs run under is decided by the process adapter at the first spawn (the subreaper shim,
// or the environment markers alone where it cannot run). The ledger says so once, and again whenever it changes (a
// job whose shim failed on its own runs with the markers only), so the user can tell what a host guarantees.

/** The processes port, with the containment of its spawns recorded in the ledger. */
export function withContainmentLedger(processes: JobProcesses, ledger: JobLedger, clock: Clock, log: Logger): JobProcesses {
  let recorded: string | undefined
  return {
    ...processes,
    async spawn(request) {
      const running = await processes.spawn(request)
      const containment = running.containment
      if (containment !== undefined && containment !== recorded) {
        recorded = containment
        const message = `containment: ${containment}`
        log.info(`jobs of this host: ${message}`)
        ledger.append({ at: clock.now(), kind: "containment", jobId: request.jobId, sessionId: null, command: request.command, message })
      }
      return running
    },
  }
}
