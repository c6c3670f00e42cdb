// A key-value StateStorage (the interface @xstate/store's persist extension writes through) on the workspace
// database's shared connection: each store is one JSON document in the key_value table.
import { eq, sql } from "drizzle-orm"
import type { StorageConnection } from "./storage.connection"
import { keyValue } from "./tables/keyvalue.tables"

export interface KeyValueStorage {
  getItem(name: string): Promise<string | null>
  setItem(name: string, value: string): Promise<void>
  removeItem(name: string): Promise<void>
  /** Names of the items that start with `prefix`. */
  names(prefix: string): Promise<string[]>
}

export function createKeyValueStorage(connection: StorageConnection, now: () => number = Date.now): KeyValueStorage {
  return {
    async getItem(name) {
      const row = await connection.exclusive((db) => db.select().from(keyValue).where(eq(keyValue.name, name)).get())
      return row?.value ?? null
    },
    async setItem(name, value) {
      const updatedAt = now()
      await connection.exclusive((db) =>
        db.insert(keyValue).values({ name, value, updatedAt }).onConflictDoUpdate({ target: keyValue.name, set: { value, updatedAt } }),
      )
    },
    async removeItem(name) {
      await connection.exclusive((db) => db.delete(keyValue).where(eq(keyValue.name, name)))
    },
    async names(prefix) {
      // substr, not LIKE: a prefix may hold the LIKE wildcards `_` and `%`.
      const rows = await connection.exclusive((db) =>
        db.select({ name: keyValue.name }).from(keyValue).where(sql`substr(${keyValue.name}, 1, ${prefix.length}) = ${prefix}`).all(),
      )
      return rows.map((row) => row.name)
    },
  }
}
