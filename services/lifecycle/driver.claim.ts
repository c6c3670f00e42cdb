import { DRIVER_CLAIM_MS, type DriverClaim, type DriverFacts } from "../../machines/driver.claim"
import type { ClaimRow, DriverClaimStore, ProcessIdentity } from "./driver.claim.ports"
import type { Clock, Logger } from "./lifecycle.ports"

// The one driver claim of a workspace's driven lifecycles (goals, loops, survive jobs): a `{holder, until}` row per
// instance. A process takes an instance's claim only when the instance's machine says it may (its guard, asked with
// `can()` on the facts read inside the claim's write transaction), renews what it holds, and lets go of it when the
// instance stops needing a driver or the process's Forge is disposed.

export interface DriverClaimsDeps {
  /** The workspace's claims; undefined while there is no database (then this process is the only one). */
  store: () => Promise<DriverClaimStore | undefined>
  identity: ProcessIdentity
  clock: Clock
  log: Logger
}

type Key = { machineId: string; instanceId: string }

const keyOf = (machineId: string, instanceId: string) => `${machineId}\u0000${instanceId}`

export class DriverClaims {
  /** The claims this process holds (as far as it knows: a renewal finds out when one was taken over). */
  private readonly held = new Map<string, Key>()

  constructor(private readonly deps: DriverClaimsDeps) {}

  get me(): string {
    return this.deps.identity.me
  }

  /** The facts the machines decide on, for a claim as read. */
  factsOf(claim: DriverClaim | null): DriverFacts {
    const { identity, clock } = this.deps
    return { me: identity.me, claim, holderAlive: claim !== null && identity.isAlive(claim.holder), now: clock.now() }
  }

  /** The facts for one instance now. */
  async facts(machineId: string, instanceId: string): Promise<DriverFacts> {
    const store = await this.deps.store()
    return this.factsOf(store === undefined ? this.localClaim(machineId, instanceId) : await store.read(machineId, instanceId))
  }

  /** Every claim on the workspace with its facts (for status lines and the watch). */
  async all(machineId?: string): Promise<(ClaimRow & { facts: DriverFacts })[]> {
    const store = await this.deps.store()
    if (store === undefined) return []
    return (await store.list(machineId)).map((row) => ({ ...row, facts: this.factsOf({ holder: row.holder, until: row.until }) }))
  }

  /**
   * Takes (or renews) the instance's claim for this process if `may` — the machine's guard on these facts — says
   * yes, in one write transaction. Resolves to whether this process holds the claim now, and the facts afterwards.
   */
  async drive(machineId: string, instanceId: string, may: (facts: DriverFacts) => boolean): Promise<{ taken: boolean; facts: DriverFacts }> {
    const store = await this.deps.store()
    const mine = (): DriverClaim => ({ holder: this.me, until: this.deps.clock.now() + DRIVER_CLAIM_MS })
    let after: DriverClaim | null
    if (store === undefined) {
      const facts = this.factsOf(this.localClaim(machineId, instanceId))
      after = may(facts) ? mine() : facts.claim
    } else {
      after = await store.take(machineId, instanceId, (current) => (may(this.factsOf(current)) ? mine() : undefined))
    }
    const taken = after !== null && after.holder === this.me
    if (taken) this.held.set(keyOf(machineId, instanceId), { machineId, instanceId })
    return { taken, facts: this.factsOf(after) }
  }

  /** Whether this process holds the instance's claim as far as it knows (no database read). */
  holds(machineId: string, instanceId: string): boolean {
    return this.held.has(keyOf(machineId, instanceId))
  }

  /** The instance needs no driver any more (or this process gives it up): its claim goes, if this process holds it. */
  async release(machineId: string, instanceId: string): Promise<void> {
    if (!this.held.delete(keyOf(machineId, instanceId))) return
    const store = await this.deps.store()
    await store?.release(this.me, [{ machineId, instanceId }])
  }

  /** Moves every held claim's end forward (a claim another process took over meanwhile stays theirs). */
  async renew(): Promise<void> {
    if (this.held.size === 0) return
    const store = await this.deps.store()
    await store?.renew(this.me, [...this.held.values()], this.deps.clock.now() + DRIVER_CLAIM_MS)
  }

  /** This process's Forge goes away: what it holds is free for the others at once, not only once its claims lapse. */
  async releaseAll(): Promise<void> {
    const keys = [...this.held.values()]
    this.held.clear()
    if (keys.length === 0) return
    const store = await this.deps.store().catch(() => undefined)
    await store?.release(this.me, keys).catch((error: unknown) => this.deps.log.warn(`driver claims could not be released: ${String(error)}`))
  }

  private localClaim(machineId: string, instanceId: string): DriverClaim | null {
    return this.held.has(keyOf(machineId, instanceId)) ? { holder: this.me, until: this.deps.clock.now() + DRIVER_CLAIM_MS } : null
  }
}
