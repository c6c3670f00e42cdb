import { processIdentity } from "../adapters/process/process.identity"
import { SqliteDriverClaimStore } from "../adapters/storage/driver.claim.repository"
import type { StorageConnection } from "../adapters/storage/storage.connection"
import { DriverClaims } from "../services/lifecycle/driver.claim"
import type { DriverClaimStore } from "../services/lifecycle/driver.claim.ports"
import type { Clock, Logger } from "../services/lifecycle/lifecycle.ports"

// The workspace's one driver claim, and the watch every process with Forge loaded keeps: it renews what this process
// drives, and takes up goals and loops whose driver ended, wherever and whenever they were started.

/** The driver claims of one workspace, in its database (opened on first use), held as this process (pid, start time). */
export function createDriverClaims(options: { connection: () => Promise<StorageConnection>; clock: Clock; log: Logger }): DriverClaims {
  let store: { connection: StorageConnection; claims: DriverClaimStore } | undefined
  return new DriverClaims({
    identity: processIdentity(),
    clock: options.clock,
    log: options.log,
    store: async () => {
      const connection = await options.connection().catch(() => undefined)
      if (connection === undefined) return undefined
      if (store?.connection !== connection) store = { connection, claims: new SqliteDriverClaimStore(connection) }
      return store.claims
    },
  })
}

/**
 * Every `everyMs` (an unref'd timer: it never keeps the process alive), one look at a time: the claims renewed, then
 * `look` (the composition's: what other processes wrote, and work whose driver ended). Returns the stop.
 */
export function startDriverWatch(options: { everyMs: number; claims: DriverClaims; look: () => Promise<void>; log: Logger }): () => void {
  let looking = false
  const timer = setInterval(() => {
    if (looking) return
    looking = true
    options.claims
      .renew()
      .then(options.look)
      .catch((error: unknown) => options.log.warn(`driver watch: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => (looking = false))
  }, options.everyMs)
  timer.unref()
  return () => clearInterval(timer)
}
