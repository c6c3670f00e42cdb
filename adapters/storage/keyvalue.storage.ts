// A key-value StateStorage (the interface @xstate/store's persist extension writes through) on the workspace
// database's shared connection: each store is one JSON document in the key_value table.
import { eq } from "drizzle-orm"
import type { StorageConnection } from "./storage.connection"
import { keyValue } from "./tables/keyvalue.tables"

export interface KeyValueStorage {
  getItem(name: string): Promise<string | null>
  setItem(name: string, value: string): Promise<void>
  removeItem(name: string): Promise<void>
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
  }
}
