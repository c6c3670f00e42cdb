// Killing a 200-process tree: a background forge_shell job whose shell starts 40 children with 4 grandchildren
// each (1 + 40 + 160 processes). Every 4th child ignores SIGTERM, and its grandchildren inherit that; every 5th
// child starts one grandchild under `setsid`, outside the job's process group. The same tree is killed by the
// supervisor (forge_jobs kill), by the adapter with no SIGTERM grace, and by `tree-kill` alone; after each kill
// the processes seen before it are watched until all are dead, or counted as survivors.
import { readFileSync } from "node:fs"
import treeKill from "tree-kill"
import { killJobTree, killJobTreeNow } from "../adapters/process/job.tree.kill"
import { JOB_ID_VAR } from "../adapters/process/job.markers"
import { type ProcessStat, pidsWithEnv, readProcessStat, readProcessStats } from "../adapters/process/proc.table"
import { type BenchJobs, elapsedMs, jobIdOf, sleep } from "./jobs.harness"

const CHILDREN = 40
const GRANDCHILDREN = 4
const IGNORE_EVERY = 4
const SETSID_EVERY = 5
export const TREE_SIZE = 1 + CHILDREN + CHILDREN * GRANDCHILDREN
const EXPECTED_IGNORERS = (CHILDREN / IGNORE_EVERY) * (1 + GRANDCHILDREN)
const EXPECTED_ESCAPEES = CHILDREN / SETSID_EVERY
const BUILD_TIMEOUT_MS = 15_000
// How long a kill's outcome is watched after the kill call returned, before what is still alive counts as survivors.
const VERIFY_MS = 1_000
const SIGTERM_MASK = 1n << 14n

/** The job's command line; `ignoring` false builds the same shape with every process honouring SIGTERM. */
export function treeCommand(ignoring: boolean): string {
  // With `setsid` the first grandchild leaves the job's process group (and session); the loop starts the rest.
  const grandchildren = (setsid: boolean): string =>
    `${setsid ? "setsid sleep 300 & j=2" : "j=1"}; while [ $j -le ${GRANDCHILDREN} ]; do sleep 300 & j=$((j+1)); done; wait`
  const child = (trap: boolean, setsid: boolean): string => `sh -c '${trap ? `trap "" TERM; ` : ""}${grandchildren(setsid)}' &`
  const branch = (trap: boolean): string => `if [ $((i % ${SETSID_EVERY})) -eq 0 ]; then ${child(trap, true)} else ${child(trap, false)} fi`
  const body = ignoring ? `if [ $((i % ${IGNORE_EVERY})) -eq 0 ]; then ${branch(true)}; else ${branch(false)}; fi` : branch(false)
  return `i=1; while [ $i -le ${CHILDREN} ]; do ${body}; i=$((i+1)); done; wait`
}

export interface Tree {
  jobId: string
  pid: number
  /** Every process of the tree once it was complete (pid + start time, so a reused pid is never mistaken). */
  members: ProcessStat[]
}

export type KillMethod = (tree: Tree) => Promise<{ reportedSurvivors?: number }>

export interface KillRun {
  /** Kill call → every process seen before it dead; null when some never died. */
  ms: number | null
  /** Kill call → the kill call returned. */
  callMs: number
  survivors: number
}

function isLive(stat: ProcessStat | null): boolean {
  return stat !== null && stat.state !== "Z" && stat.state !== "X"
}

function alive(members: readonly ProcessStat[]): ProcessStat[] {
  return members.filter((m) => {
    const now = readProcessStat(m.pid)
    return isLive(now) && now?.startTicks === m.startTicks
  })
}

function ignoresSigterm(pid: number): boolean {
  try {
    const line = /^SigIgn:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]
    return line !== undefined && (BigInt(`0x${line}`) & SIGTERM_MASK) !== 0n
  } catch {
    return false
  }
}

/** Starts the tree as a background forge_shell job and waits until all of it runs; checks it has the claimed shape. */
export async function buildTree(jobs: BenchJobs, ignoring: boolean, problems: string[]): Promise<Tree | undefined> {
  const result = await jobs.supervisor.run("bench-tree", jobs.request({ command: treeCommand(ignoring), run_in_background: true }))
  const jobId = jobIdOf(result)
  const pid = Number(
    /pid (\d+)/.exec(
      jobs.supervisor
        .list("bench-tree")
        .split("\n")
        .find((l) => l.includes(jobId)) ?? "",
    )?.[1],
  )
  const deadline = Date.now() + BUILD_TIMEOUT_MS
  let members: ProcessStat[] = []
  for (;;) {
    members = pidsWithEnv(JOB_ID_VAR, jobId)
      .map((p) => readProcessStat(p))
      .filter((s): s is ProcessStat => isLive(s))
    // Complete once every child runs `sh` and every grandchild `sleep`: a fork still on its way to exec (or to
    // setsid) does not count yet.
    const shells = members.filter((m) => m.comm === "sh").length
    const sleepers = members.filter((m) => m.comm === "sleep").length
    const complete = members.length === TREE_SIZE && shells === CHILDREN && sleepers === CHILDREN * GRANDCHILDREN
    if (complete || Date.now() > deadline) break
    await sleep(10)
  }
  const ignorers = members.filter((m) => ignoresSigterm(m.pid)).length
  const escapees = members.filter((m) => m.pgid !== pid).length
  const shapeOk =
    members.length === TREE_SIZE && ignorers === (ignoring ? EXPECTED_IGNORERS : 0) && escapees === EXPECTED_ESCAPEES && Number.isInteger(pid) && pid > 0
  if (!shapeOk) {
    problems.push(
      `the tree of job ${jobId} is not the claimed shape: ${members.length}/${TREE_SIZE} processes, ${ignorers} ignoring SIGTERM ` +
        `(expected ${ignoring ? EXPECTED_IGNORERS : 0}), ${escapees} outside the group (expected ${EXPECTED_ESCAPEES})`,
    )
    killJobTreeNow({ pid, jobId })
    return undefined
  }
  return { jobId, pid, members }
}

/** Times one kill: from the call until every process seen before it is dead (watched for VERIFY_MS after the call). */
export async function timeKill(tree: Tree, method: KillMethod): Promise<KillRun & { reportedSurvivors?: number }> {
  const start = process.hrtime.bigint()
  const { reportedSurvivors } = await method(tree)
  const callMs = elapsedMs(start)
  const verifyUntil = Date.now() + VERIFY_MS
  let left = alive(tree.members)
  while (left.length > 0 && Date.now() < verifyUntil) {
    await sleep(2)
    left = alive(left)
  }
  const ms = left.length === 0 ? elapsedMs(start) : null
  // Whatever a method left behind goes now, so the next tree starts on a clean table.
  if (left.length > 0) {
    killJobTreeNow({ pid: tree.pid, jobId: tree.jobId })
    for (const m of left) {
      try {
        process.kill(m.pid, "SIGKILL")
      } catch {
        // Already gone.
      }
    }
  }
  return { ms, callMs, survivors: left.length, reportedSurvivors }
}

const SETTLE_MS = 3_000

/**
 * Waits (at most SETTLE_MS) until the killed tree is fully gone — reaped, not just dead — and no `ps` that tree-kill
 * started from this host still runs, so the next measurement does not pay for this one's leftovers. Orphans are
 * reaped by the system's init, which may take its time. False when the wait ran out.
 */
export async function settle(tree: Tree): Promise<boolean> {
  const until = Date.now() + SETTLE_MS
  for (;;) {
    const reaped = tree.members.every((m) => readProcessStat(m.pid)?.startTicks !== m.startTicks)
    const walkers = readProcessStats().filter((p) => p.ppid === process.pid && p.comm === "ps").length
    if (reaped && walkers === 0) return true
    if (Date.now() >= until) return false
    await sleep(50)
  }
}

export const supervisorKill =
  (jobs: BenchJobs): KillMethod =>
  async (tree) => {
    const text = await jobs.supervisor.kill(tree.jobId)
    if (text.includes("killed its whole process tree")) return { reportedSurvivors: 0 }
    const counted = /but (\d+) process\(es\) survived/.exec(text)?.[1]
    return { reportedSurvivors: counted === undefined ? -1 : Number(counted) }
  }

export const adapterKillNoGrace: KillMethod = async (tree) => {
  const report = await killJobTree({ pid: tree.pid, jobId: tree.jobId }, { graceMs: 0 })
  return { reportedSurvivors: report.survivors.length }
}

export const treeKillAlone =
  (signal: "SIGTERM" | "SIGKILL"): KillMethod =>
  (tree) =>
    new Promise((resolve) => {
      treeKill(tree.pid, signal, () => resolve({}))
    })
