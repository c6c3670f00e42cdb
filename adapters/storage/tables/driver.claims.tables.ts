// The one driver claim of every driven lifecycle instance (goals, loops, survive jobs): who drives it, until when.
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core"

export const driverClaims = sqliteTable(
  "driver_claims",
  {
    machineId: text("machine_id").notNull(),
    instanceId: text("instance_id").notNull(),
    // A process identity: `pid:starttime` (clock ticks from /proc/<pid>/stat), so a reused pid never counts as alive.
    holder: text("holder").notNull(),
    // Epoch ms; the holder moves it forward while it lives.
    until: integer("until").notNull(),
  },
  (table) => [primaryKey({ columns: [table.machineId, table.instanceId] })],
)
