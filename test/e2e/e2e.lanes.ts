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

function laneDir(lane: number): string {
  return path.join(LANE_ROOT, `forgecharts-e2e.lane-${lane}`)
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

const held = new Set<number>()
/** When each lane was first seen taken by someone else without a pid file: a fresh lane gets a moment to write it. */
const seenEmpty = new Map<number, number>()

function tryTake(lane: number): boolean {
  const dir = laneDir(lane)
  try {
    fs.mkdirSync(dir)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err
    if (held.has(lane) || ownerAlive(dir)) return false
    const first = seenEmpty.get(lane) ?? Date.now()
    seenEmpty.set(lane, first)
    if (Date.now() - first < 1_000) return false
    seenEmpty.delete(lane)
    fs.rmSync(dir, { recursive: true, force: true })
    return tryTake(lane)
  }
  fs.writeFileSync(path.join(dir, "pid"), String(process.pid))
  held.add(lane)
  return true
}

function release(lane: number): void {
  held.delete(lane)
  fs.rmSync(laneDir(lane), { recursive: true, force: true })
}

process.on("exit", () => {
  for (const lane of held) fs.rmSync(laneDir(lane), { recursive: true, force: true })
})

/** This process's callers waiting for a lane, oldest first: only the oldest tries to take one. */
const queue: object[] = []
/** Wakes the waiters when a lane of this process was released (other processes' lanes are polled). */
const wakers = new Set<() => void>()

function wakeAll(): void {
  for (const wake of [...wakers]) wake()
}

async function takeLane(lanes: number): Promise<number> {
  const me = {}
  queue.push(me)
  try {
    for (;;) {
      if (queue[0] === me) for (let k = 1; k <= lanes; k += 1) if (tryTake(k)) return k
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
export async function withLane<T>(fn: (lane: number) => Promise<T>, lanes: number = laneCount()): Promise<T> {
  const lane = await takeLane(lanes)
  try {
    return await fn(lane)
  } finally {
    release(lane)
    wakeAll()
  }
}

/** Runs `fn` holding every lane (a benchmark that times opencode wants the machine to itself). */
export async function withAllLanes<T>(fn: () => Promise<T>, lanes: number = laneCount()): Promise<T> {
  const take = async (k: number): Promise<T> => (k > lanes ? fn() : withLane(() => take(k + 1), lanes))
  return take(1)
}
