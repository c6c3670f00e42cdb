import { describe, expect, it } from "vitest"
import { DRIVER_CLAIM_MS, DRIVER_WATCH_MS, drivenElsewhereText, mayDrive, undrivenText } from "../../../machines/driver.claim"

// The one driver claim's rule, alone: who may drive a goal, a loop or a survive job, given the claim as stored.

const T = 1_700_000_000_000
const claim = { holder: "100:5000", until: T + 5_000 }

describe("mayDrive", () => {
  it("a live holder whose claim runs is never taken over", () => {
    expect(mayDrive({ me: "200:7000", claim, holderAlive: true, now: T })).toBe(false)
  })

  it("the holder itself, an unclaimed instance, a dead holder's and a lapsed claim may be driven", () => {
    expect(mayDrive({ me: "100:5000", claim, holderAlive: true, now: T })).toBe(true)
    expect(mayDrive({ me: "200:7000", claim: null, holderAlive: false, now: T })).toBe(true)
    expect(mayDrive({ me: "200:7000", claim, holderAlive: false, now: T })).toBe(true)
    expect(mayDrive({ me: "200:7000", claim, holderAlive: true, now: T + 5_000 })).toBe(true)
  })

  it("a dead driver is taken over within 15 s: the watch's period plus the claim's lapse stays inside it", () => {
    expect(DRIVER_WATCH_MS + DRIVER_CLAIM_MS).toBeLessThanOrEqual(15_000)
  })
})

describe("the words for it", () => {
  it("names the live holder and the claim's end; says nothing where this process may drive", () => {
    expect(drivenElsewhereText("goal g.md", { me: "200:7000", claim, holderAlive: true, now: T })).toBe(
      `goal g.md is driven by another opencode process (100:5000), which still runs; its claim runs until ${new Date(T + 5_000).toISOString()} and is renewed while it lives. This process takes it over only once that process has ended.`,
    )
    expect(drivenElsewhereText("goal g.md", { me: "100:5000", claim, holderAlive: true, now: T })).toBeNull()
  })

  it("says a claim with no end a date can name (a job's live host) lasts as long as its holder runs", () => {
    const endless = { holder: "100:5000", until: Number.MAX_SAFE_INTEGER }
    expect(drivenElsewhereText("job j", { me: "200:7000", claim: endless, holderAlive: true, now: T })).toBe(
      "job j is driven by another opencode process (100:5000), which still runs; it holds the claim for as long as it runs. This process takes it over only once that process has ended.",
    )
  })

  it("says why nobody drives: unclaimed, a dead holder, a lapsed claim", () => {
    expect(undrivenText(null, false, T)).toMatch(/no process has claimed it yet/)
    expect(undrivenText(claim, false, T)).toMatch(/its driver 100:5000 has ended/)
    expect(undrivenText(claim, true, T + 6_000)).toMatch(/stopped renewing its claim/)
    expect(undrivenText(claim, true, T)).toBeNull()
  })
})
