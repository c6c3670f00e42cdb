// The driver claims in SQLite, on the workspace database's one connection.
import { and, eq, inArray, or, type SQL } from "drizzle-orm"
import type { DriverClaim } from "../../machines/driver.claim"
import { ClaimBusyError, type ClaimDecision, type ClaimRow, type DriverClaimStore } from "../../services/lifecycle/driver.claim.ports"
import { isBusy } from "./sqlite.busy"
import type { StorageConnection } from "./storage.connection"
import { driverClaims } from "./tables/driver.claims.tables"

type Key = { machineId: string; instanceId: string }

export class SqliteDriverClaimStore implements DriverClaimStore {
  constructor(private readonly connection: StorageConnection) {}

  async read(machineId: string, instanceId: string): Promise<DriverClaim | null> {
    const row = await this.connection.exclusive((db) =>
      db
        .select({ holder: driverClaims.holder, until: driverClaims.until })
        .from(driverClaims)
        .where(and(eq(driverClaims.machineId, machineId), eq(driverClaims.instanceId, instanceId)))
        .get(),
    )
    return row ?? null
  }

  async list(machineId?: string): Promise<ClaimRow[]> {
    return this.connection.exclusive((db) =>
      db
        .select()
        .from(driverClaims)
        .where(machineId === undefined ? undefined : eq(driverClaims.machineId, machineId)),
    )
  }

  async take(machineId: string, instanceId: string, decide: ClaimDecision): Promise<DriverClaim | null> {
    return this.transaction(machineId, instanceId, decide).catch((error: unknown) => {
      if (!isBusy(error)) throw error
      throw new ClaimBusyError(`the driver claim of ${machineId} ${instanceId} could not be taken now: the database stayed locked`)
    })
  }

  private transaction(machineId: string, instanceId: string, decide: ClaimDecision): Promise<DriverClaim | null> {
    return this.connection.exclusive((db) =>
      db.transaction(
        async (tx) => {
          const current =
            (await tx
              .select({ holder: driverClaims.holder, until: driverClaims.until })
              .from(driverClaims)
              .where(and(eq(driverClaims.machineId, machineId), eq(driverClaims.instanceId, instanceId)))
              .get()) ?? null
          const next = decide(current)
          if (next === undefined) return current
          await tx
            .insert(driverClaims)
            .values({ machineId, instanceId, ...next })
            .onConflictDoUpdate({ target: [driverClaims.machineId, driverClaims.instanceId], set: next })
          return next
        },
        { behavior: "immediate" },
      ),
    )
  }

  async renew(holder: string, keys: readonly Key[], until: number): Promise<void> {
    if (keys.length === 0) return
    await this.connection.exclusive((db) => db.update(driverClaims).set({ until }).where(heldBy(holder, keys)))
  }

  async release(holder: string, keys: readonly Key[]): Promise<void> {
    if (keys.length === 0) return
    await this.connection.exclusive((db) => db.delete(driverClaims).where(heldBy(holder, keys)))
  }
}

/** The rows of `keys` that `holder` still holds (grouped by machine: one IN list each). */
function heldBy(holder: string, keys: readonly Key[]): SQL | undefined {
  const byMachine = new Map<string, string[]>()
  for (const { machineId, instanceId } of keys) byMachine.set(machineId, [...(byMachine.get(machineId) ?? []), instanceId])
  const anyOf = [...byMachine].map(([machineId, ids]) => and(eq(driverClaims.machineId, machineId), inArray(driverClaims.instanceId, ids)))
  return and(eq(driverClaims.holder, holder), anyOf.length === 1 ? anyOf[0] : or(...anyOf))
}
