// The one driver claim every driven lifecycle shares (goals, loops, survive jobs): which process drives an instance,
// and until when. Pure: the claim row, whether its holder still runs and the time come in as facts.

/** How long a claim lasts unless its holder renews it: a holder that stops renewing is taken over after this. */
export const DRIVER_CLAIM_MS = 10_000
/** How often a holder renews its claims (well inside DRIVER_CLAIM_MS). */
export const DRIVER_RENEW_MS = 3_000
/** How often every process looks for claimed work whose driver died: with DRIVER_CLAIM_MS, a takeover within 15 s. */
export const DRIVER_WATCH_MS = 3_000

/** Who drives one lifecycle instance: a process identity (`pid:starttime`, so a reused pid never counts) and until when. */
export interface DriverClaim {
  holder: string
  until: number
}

/** What "may this process drive it?" is decided on: the claim as stored, this process, and whether the holder runs. */
export interface DriverFacts {
  /** This process's identity. */
  me: string
  /** The instance's claim, or null when nobody ever claimed it. */
  claim: DriverClaim | null
  /** Whether the claim's holder process still runs (same pid and start time). */
  holderAlive: boolean
  /** Epoch ms. */
  now: number
}

/** The facts where this process is the only one (no workspace database to keep claims in): nobody else drives. */
export function soleDriver(): DriverFacts {
  // Without a claim the time decides nothing.
  return { me: "this process", claim: null, holderAlive: false, now: 0 }
}

/** A live driver is never taken over: only an unclaimed instance, one's own, a dead holder's or a lapsed claim. */
export function mayDrive({ me, claim, holderAlive, now }: DriverFacts): boolean {
  return claim === null || claim.holder === me || !holderAlive || now >= claim.until
}

export function isDrivenElsewhere(facts: DriverFacts): boolean {
  return !mayDrive(facts)
}

/** Why an instance cannot be driven here, in words for a tool or a status line; null when it may be. */
export function drivenElsewhereText(what: string, facts: DriverFacts): string | null {
  if (mayDrive(facts) || facts.claim === null) return null
  // A job's live host holds its jobs for as long as it runs, with no end to say (drivenByHost's claim).
  const until = Number.isFinite(new Date(facts.claim.until).getTime())
    ? `its claim runs until ${new Date(facts.claim.until).toISOString()} and is renewed while it lives`
    : "it holds the claim for as long as it runs"
  return `${what} is driven by another opencode process (${facts.claim.holder}), which still runs; ${until}. This process takes it over only once that process has ended.`
}

/** Why nobody drives an instance whose claim is as given (for status lines): null while a live holder drives it. */
export function undrivenText(claim: DriverClaim | null, holderAlive: boolean, now: number): string | null {
  if (claim === null) return "no process has claimed it yet (the next opencode process with Forge loaded takes it up)"
  if (!holderAlive) return `its driver ${claim.holder} has ended; a running opencode process with Forge loaded takes it over`
  if (now >= claim.until)
    return `its driver ${claim.holder} stopped renewing its claim at ${new Date(claim.until).toISOString()}; another process takes it over`
  return null
}

/** Who drives an instance that needs a driver, in one line for a status: the live holder, or why nobody does. */
export function driverLineText(claim: DriverClaim | null, holderAlive: boolean, now: number): string {
  const undriven = undrivenText(claim, holderAlive, now)
  return undriven === null ? `driven by opencode process ${claim?.holder}` : `not driven: ${undriven}`
}
