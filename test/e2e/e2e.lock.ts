// One scenario at a time per machine: each opencode process takes ~500 MB and most of a core, so runs from
// parallel test files (or a CLI run next to a test run) queue here instead of starving each other.
// The lock is a directory (mkdir is atomic) holding the owner's pid; a lock whose owner is gone is taken over.
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { MACHINE_TMPDIR_ENV } from "../tmpdir.global-setup"
import { sleep } from "./processes"

// Under vitest, TMPDIR is the run's private temp dir: the lock stays in the machine's one.
const LOCK_DIR = path.join(process.env[MACHINE_TMPDIR_ENV] ?? os.tmpdir(), "forgecharts-e2e.lock")

function ownerAlive(): boolean {
  try {
    const pid = Number(fs.readFileSync(path.join(LOCK_DIR, "pid"), "utf8"))
    if (!Number.isInteger(pid) || pid <= 0) return false
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === "EPERM"
  }
}

let held = false
let queue: Promise<void> = Promise.resolve()

async function acquireDir(): Promise<void> {
  for (let waited = 0; ; waited += 250) {
    try {
      fs.mkdirSync(LOCK_DIR)
      fs.writeFileSync(path.join(LOCK_DIR, "pid"), String(process.pid))
      held = true
      return
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err
    }
    // Give a fresh lock a moment to get its pid file before judging it stale.
    if (waited >= 1_000 && !ownerAlive()) fs.rmSync(LOCK_DIR, { recursive: true, force: true })
    await sleep(250)
  }
}

process.on("exit", () => {
  if (held) fs.rmSync(LOCK_DIR, { recursive: true, force: true })
})

/** Runs `fn` while holding the machine-wide e2e lock; calls within one process queue in order. */
export function withE2eLock<T>(fn: () => Promise<T>): Promise<T> {
  const run = queue.then(async () => {
    await acquireDir()
    try {
      return await fn()
    } finally {
      held = false
      fs.rmSync(LOCK_DIR, { recursive: true, force: true })
    }
  })
  queue = run.then(
    () => undefined,
    () => undefined,
  )
  return run
}
