// Public surface of the storage adapter: drizzle + SQLite behind the lifecycle ports.
export { databasePath, openLifecycleStore, createLifecycleStore, type LifecycleStore } from "./lifecycle.store"
export { SqliteLifecycleRepository } from "./lifecycle.repository"
export { createStorageConnection, type ForgeDatabase, type StorageConnection } from "./storage.connection"
export {
  openSqliteDriver,
  runtimeDriverName,
  type SqliteDriver,
  type SqliteDriverName,
  type SqlRunResult,
  type SqlValue,
} from "./sqlite.driver"
export { migrate, MIGRATIONS_TABLE, type EmbeddedMigration } from "./migrator"
export { migrations } from "./migrations.generated"
export { SqliteLedgerStore, openLedgerStore, sharedLedgerStore, type OwnLedgerStore, type OpenLedgerStoreOptions } from "./ledger.repository"
export { openWatchdogLedger, sharedWatchdogLedger, type WatchdogLedgerStore } from "./watchdog.ledger.repository"
export { createKeyValueStorage, type KeyValueStorage } from "./keyvalue.storage"
