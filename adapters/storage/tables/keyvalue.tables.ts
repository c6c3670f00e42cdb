// Small persisted stores (e.g. @xstate/store state such as the job ledger): one JSON document per name.
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core"

export const keyValue = sqliteTable("key_value", {
  name: text("name").primaryKey(),
  value: text("value").notNull(),
  updatedAt: integer("updated_at").notNull(),
})
