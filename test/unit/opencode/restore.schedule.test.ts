import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { RestoreSchedule } from "../../../adapters/opencode/restore.schedule"

const DELAY = { afterStartMs: 5_000, afterTurnsMs: 100 }

describe("the background restore's schedule", () => {
  let restores = 0
  let schedule: RestoreSchedule
  beforeEach(() => {
    vi.useFakeTimers()
    restores = 0
    schedule = new RestoreSchedule(() => void restores++, DELAY)
  })
  afterEach(() => {
    schedule.cancel()
    vi.useRealTimers()
  })

  it("starts a while after start-up when no session runs a turn", () => {
    schedule.started()
    vi.advanceTimersByTime(4_999)
    expect(restores).toBe(0)
    vi.advanceTimersByTime(1)
    expect(restores).toBe(1)
  })

  it("waits for the running turns to end, then starts soon", () => {
    schedule.started()
    schedule.turnStarted("a")
    schedule.turnStarted("b")
    vi.advanceTimersByTime(1_000)
    schedule.turnEnded("a")
    vi.advanceTimersByTime(1_000)
    expect(restores).toBe(0)
    schedule.turnEnded("b")
    vi.advanceTimersByTime(99)
    expect(restores).toBe(0)
    vi.advanceTimersByTime(1)
    expect(restores).toBe(1)
  })

  it("a turn that starts again puts it off, but never past the deadline after start-up", () => {
    schedule.started()
    schedule.turnStarted("a")
    schedule.turnEnded("a")
    vi.advanceTimersByTime(50)
    schedule.turnStarted("a")
    vi.advanceTimersByTime(4_000)
    expect(restores).toBe(0)
    // A turn that outlasts the deadline does not hold back work a dead driver left.
    vi.advanceTimersByTime(950)
    expect(restores).toBe(1)
    schedule.turnEnded("a")
    vi.advanceTimersByTime(10_000)
    expect(restores).toBe(1)
  })

  it("does nothing for turns before start-up asked for it, and runs once", () => {
    schedule.turnStarted("a")
    schedule.turnEnded("a")
    vi.advanceTimersByTime(10_000)
    expect(restores).toBe(0)
    schedule.started()
    schedule.started()
    vi.advanceTimersByTime(5_000)
    expect(restores).toBe(1)
  })

  it("without a delay restores at once, and a cancelled one never runs", () => {
    const now = new RestoreSchedule(() => void restores++, undefined)
    now.started()
    expect(restores).toBe(1)
    schedule.started()
    schedule.cancel()
    vi.advanceTimersByTime(10_000)
    expect(restores).toBe(1)
  })
})
