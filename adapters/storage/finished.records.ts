// Removing chosen finished lifecycle records (`forgecharts jobs --clear`): retention (pruneTerminal) removes the oldest
// by count; this removes the named ones. Only a record whose state is final goes, checked inside the write, so a
// record that is live again or still live is never removed.
import { and, eq, inArray } from "drizzle-orm"
import type { StorageConnection } from "./storage.connection"
import { actors, transitions } from "./tables/lifecycle.tables"

/** Removes the named instances' snapshot rows and transition rows where the snapshot is final; resolves to the ids removed. */
export function removeFinishedRecords(connection: StorageConnection, machineId: string, instanceIds: readonly string[]): Promise<string[]> {
  if (instanceIds.length === 0) return Promise.resolve([])
  return connection.exclusive((db) =>
    db.transaction(
      async (tx) => {
        const finished = await tx
          .select({ instanceId: actors.instanceId })
          .from(actors)
          .where(and(eq(actors.machineId, machineId), eq(actors.terminal, true), inArray(actors.instanceId, [...instanceIds])))
        const ids = finished.map((row) => row.instanceId)
        if (ids.length === 0) return []
        await tx.delete(transitions).where(and(eq(transitions.machineId, machineId), inArray(transitions.instanceId, ids)))
        await tx.delete(actors).where(and(eq(actors.machineId, machineId), inArray(actors.instanceId, ids)))
        return ids
      },
      { behavior: "immediate" },
    ),
  )
}
