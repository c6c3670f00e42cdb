import type { DriverClaim } from "../../machines/driver.claim"

// What the driver claim needs from the world: the claims stored where every process on the workspace sees them, and
// this process's identity with a way to tell whether another identity still runs.

/** One lifecycle instance's claim row. */
export interface ClaimRow extends DriverClaim {
  machineId: string
  instanceId: string
}

/** Decides, on the claim as it stands inside the write transaction, the claim to write (undefined: write nothing). */
export type ClaimDecision = (current: DriverClaim | null) => DriverClaim | undefined

/**
 * The store could not take the claim now because another connection held the database's write lock past its wait:
 * a moment's trouble, not the instance's. Whoever asked tries again shortly.
 */
export class ClaimBusyError extends Error {
  constructor(message: string) {
    super(message)
    this.name = "ClaimBusyError"
  }
}

export interface DriverClaimStore {
  /** The instance's claim, or null. */
  read(machineId: string, instanceId: string): Promise<DriverClaim | null>
  /** Every claim (of one machine, or all). */
  list(machineId?: string): Promise<ClaimRow[]>
  /**
   * Reads the claim and writes what `decide` returns in one write transaction (SQLite `BEGIN IMMEDIATE`), so two
   * processes never both take one instance. Resolves to the claim as it stands afterwards; rejects with ClaimBusyError
   * when the database stayed locked.
   */
  take(machineId: string, instanceId: string, decide: ClaimDecision): Promise<DriverClaim | null>
  /** Moves `until` of the given instances' claims that `holder` still holds (a claim taken over meanwhile stays). */
  renew(holder: string, keys: readonly { machineId: string; instanceId: string }[], until: number): Promise<void>
  /** Drops the given instances' claims that `holder` still holds. */
  release(holder: string, keys: readonly { machineId: string; instanceId: string }[]): Promise<void>
}

/** This process as a claim holder: its identity (pid and start time), and whether another identity's process runs. */
export interface ProcessIdentity {
  readonly me: string
  isAlive(holder: string): boolean
}
