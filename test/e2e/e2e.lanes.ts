// Lanes: at most N scenarios run at a time on a machine (default 2, FORGE_E2E_LANES), so while one waits for a model
// turn another runs, and no more opencode processes start than the cores can boot. Each lane is a directory in the
// machine's temp dir (mkdir is atomic) holding its owner's pid; a lane whose owner is gone is taken over. A process may
// hold several lanes at once (concurrent tests) and keeps one shared opencode host per lane it has used
// (shared.host.ts), so a lane's scenarios reuse a warm host.
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { MACHINE_TMPDIR_ENV } from "../tmpdir.global-setup"

/** How many lanes a machine runs by default: two cores boot two opencode processes at once, no more. */
export const DEFAULT_LANES = 2
export const LANES_ENV = "FORGE_E2E_LANES"

/** The lane count: FORGE_E2E_LANES when it is a whole number from 1 to 8, else the default. */
export function laneCount(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[LANES_ENV]
  if (raw === undefined || raw === "") return DEFAULT_LANES
  const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN
  if (!Number.isInteger(n) || n < 1 || n > 8) throw new Error(`${LANES_ENV}=${JSON.stringify(raw)} is not a whole number from 1 to 8`)
  return n
}

// Under vitest, TMPDIR is the run's private temp dir: the lanes stay in the machine's one.
const LANE_ROOT = process.env[MACHINE_TMPDIR_ENV] ?? os.tmpdir()

export interface LaneOptions {
  /** How many lanes there are: `laneCount()` by default. */
  lanes?: number
  /** Where the lanes' directories live: the machine's temp dir by default (a test may use its own). */
  root?: string
}

function laneDir(root: string, lane: number): string {
  return path.join(root, `forgecharts-e2e.lane-${lane}`)
}

function ownerAlive(dir: string): boolean {
  try {
    const pid = Number(fs.readFileSync(path.join(dir, "pid"), "utf8"))
    if (!Number.isInteger(pid) || pid <= 0) return false
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** The lane directories this process holds. */
const held = new Set<string>()
/** When each lane was first seen taken without a pid file: a lane just made gets a moment to write it. */
const seenEmpty = new Map<string, number>()

function tryTake(dir: string): boolean {
  try {
    fs.mkdirSync(dir)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err
    if (held.has(dir) || ownerAlive(dir)) return false
    const first = seenEmpty.get(dir) ?? Date.now()
    seenEmpty.set(dir, first)
    if (Date.now() - first < 1_000) return false
    // Its owner is gone: the lane is free.
    seenEmpty.delete(dir)
    fs.rmSync(dir, { recursive: true, force: true })
    return tryTake(dir)
  }
  fs.writeFileSync(path.join(dir, "pid"), String(process.pid))
  held.add(dir)
  return true
}

function release(dir: string): void {
  held.delete(dir)
  fs.rmSync(dir, { recursive: true, force: true })
}

process.on("exit", () => {
  for (const dir of held) fs.rmSync(dir, { recursive: true, force: true })
})

/** This process's callers waiting for a lane, oldest first: only the oldest tries to take one. */
const queue: object[] = []
/** Wakes the waiters when a lane of this process was released (other processes' lanes are polled). */
const wakers = new Set<() => void>()

function wakeAll(): void {
  for (const wake of [...wakers]) wake()
}

async function takeLane(lanes: number, root: string): Promise<number> {
  const me = {}
  queue.push(me)
  try {
    for (;;) {
      if (queue[0] === me) for (let k = 1; k <= lanes; k += 1) if (tryTake(laneDir(root, k))) return k
      await new Promise<void>((resolve) => {
        const wake = () => {
          wakers.delete(wake)
          clearTimeout(timer)
          resolve()
        }
        // Lanes held by other processes free up without telling this one: look again now and then.
        const timer = setTimeout(wake, 250)
        wakers.add(wake)
      })
    }
  } finally {
    queue.splice(queue.indexOf(me), 1)
    wakeAll()
  }
}

/** Runs `fn` in a free lane (1-based), waiting for one in the order asked; the lane is released when `fn` settles. */
export async function withLane<T>(fn: (lane: number) => Promise<T>, options: LaneOptions = {}): Promise<T> {
  const root = options.root ?? LANE_ROOT
  const lane = await takeLane(options.lanes ?? laneCount(), root)
  try {
    return await fn(lane)
  } finally {
    release(laneDir(root, lane))
    wakeAll()
  }
}

/** Runs `fn` holding every lane (a benchmark that times opencode wants the machine to itself). */
export async function withAllLanes<T>(fn: () => Promise<T>, options: LaneOptions = {}): Promise<T> {
  const lanes = options.lanes ?? laneCount()
  const take = async (k: number): Promise<T> => (k > lanes ? fn() : withLane(() => take(k + 1), { ...options, lanes }))
  return take(1)
}
