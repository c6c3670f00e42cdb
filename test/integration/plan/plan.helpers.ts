import { afterEach, beforeEach } from "vitest"
import { rmSync } from "node:fs"
import { tempDir } from "../../temp.dir"
import type { Confirm, Logger } from "../../../services/lifecycle/lifecycle.ports"
import { type ComposedRuntime, createForgeRuntime } from "../../../src/runtime"

export const PLAN_BODY = `# Fix login timeout

## Goal
Sessions survive 40 s of idle.

<!-- forge-section -->
## Phase 1: Reproduce
Write the failing test.

## Tasks
- [ ] 1. Write a failing test
- [ ] 2. Raise the timeout

## Acceptance Criteria
- Login succeeds after 40 s of idle
- The suite is green
`

export const PASSING_CHECKS = [
  { criterion: "Login succeeds after 40 s of idle", pass: true, evidence: "test/login.test.ts passes" },
  { criterion: "The suite is green", pass: true, evidence: "npm test: 12 passed" },
]

export const allow: Confirm = async () => true
export const reject: Confirm = async () => false

/** A logger that keeps what it was told, for assertions. */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = []
  const push = (level: string) => (message: string) => void lines.push(`${level}: ${message}`)
  return { lines, info: push("info"), warn: push("warn"), error: push("error") }
}

/**
 * A fresh workspace folder (by default in the temp dir; `dir` gives another, e.g. ramTempDir's) with a clock that
 * only moves when told. Call it in a test or a beforeEach: the folder is removed once the test finished, after its
 * afterEach hooks (which close what uses it), even when the test or a hook failed; `cleanup()` removes it earlier.
 */
export function tempWorkspace(dir = tempDir("forge-plan-")): { dir: string; clock: { now(): number; advance(ms: number): void }; cleanup(): void } {
  const cleanup = () => rmSync(dir, { recursive: true, force: true })
  let now = Date.parse("2026-11-30T03:00:00.000Z")
  return {
    dir,
    clock: {
      now: () => now,
      advance: (ms) => {
        now += ms
      },
    },
    cleanup,
  }
}

export function openRuntime(dir: string, clock: { now(): number }, log: Logger = memoryLogger()): Promise<ComposedRuntime> {
  return createForgeRuntime({ workspace: dir, clock, log })
}

/**
 * A fresh workspace and its runtime for every test of the calling suite; `rt` may be replaced (a restart), and
 * whichever runtime it holds is closed after the test, then the workspace removed (tempWorkspace).
 */
export function useRuntime(): { readonly ws: ReturnType<typeof tempWorkspace>; rt: ComposedRuntime } {
  const live: { ws?: ReturnType<typeof tempWorkspace>; rt?: ComposedRuntime } = {}
  beforeEach(async () => {
    live.ws = tempWorkspace()
    live.rt = await openRuntime(live.ws.dir, live.ws.clock)
  })
  afterEach(async () => {
    // Taken first: when the open failed there is no runtime of this test to close.
    const rt = live.rt
    live.rt = undefined
    await rt?.close()
  })
  return live as { readonly ws: ReturnType<typeof tempWorkspace>; rt: ComposedRuntime }
}
