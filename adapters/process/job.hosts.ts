// Job hosts: one per plugin instance (opencode runs one per directory it serves). A host is alive while its process
// runs — and, for this very process, while its instance has not been released by its dispose, so the next instance
// of the same process takes over what a reloaded one left.
import { randomBytes } from "node:crypto"
import type { JobHost } from "../../machines/job/job.machine"
import { isAlive, readProcess } from "./proc.table"

/** /proc start times carry 10 ms precision and the spawn time is taken right after the fork. */
export const START_TOLERANCE_MS = 1_000

const running = new Set<string>()

function selfStartedAt(): number {
  const self = readProcess(process.pid)
  if (self === null) throw new Error(`cannot read /proc/${process.pid}: the job host needs a Linux /proc`)
  return self.startedAt
}

/** Whether `pid` is still the process that started at `startedAt` (epoch ms). */
export function isSameProcessAt(pid: number, startedAt: number): boolean {
  const info = readProcess(pid)
  return info !== null && isAlive(pid) && Math.abs(info.startedAt - startedAt) <= START_TOLERANCE_MS
}

/** A new, running job host in this process. */
export function currentHost(): JobHost {
  const host = { pid: process.pid, startedAt: selfStartedAt(), instance: randomBytes(4).toString("hex") }
  running.add(host.instance)
  return host
}

/** The host's instance was disposed: from now on it counts as gone, and its jobs are the next start's to take over. */
export function releaseHost(host: JobHost): void {
  running.delete(host.instance)
}

export function isHostAlive(host: JobHost): boolean {
  if (host.pid === process.pid && host.startedAt === selfStartedAt()) return running.has(host.instance)
  return isSameProcessAt(host.pid, host.startedAt)
}
