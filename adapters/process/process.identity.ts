// A process's identity for the driver claim: its pid and its start time in clock ticks from /proc/<pid>/stat, so a
// pid the kernel hands out again never counts as the process that held a claim.
import type { ProcessIdentity } from "../../services/lifecycle/driver.claim.ports"
import { isLiveStat, readProcessStat } from "./proc.table"

/** `pid:startTicks` of a running process; throws where there is no /proc to read it from. */
export function identityOf(pid: number): string {
  const stat = readProcessStat(pid)
  if (stat === null) throw new Error(`cannot read /proc/${pid}/stat: the driver claim needs a Linux /proc`)
  return `${pid}:${stat.startTicks}`
}

/** Whether the process an identity names still runs: same pid, same start time, not a zombie. */
export function isIdentityAlive(holder: string): boolean {
  const match = /^(\d+):(\d+)$/.exec(holder)
  if (match === null) return false
  const stat = readProcessStat(Number(match[1]))
  return stat !== null && stat.startTicks === Number(match[2]) && isLiveStat(stat)
}

export function processIdentity(): ProcessIdentity {
  const me = identityOf(process.pid)
  return { me, isAlive: (holder) => holder === me || isIdentityAlive(holder) }
}
