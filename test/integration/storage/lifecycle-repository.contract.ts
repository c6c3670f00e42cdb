// The storage contract, written once and run on every driver: in vitest on `sqlite3` and under Bun on `bun:sqlite`.
// It uses node:assert only, so the Bun runner needs no test framework. Its cases live in one module per concern:
// the database file, the records, the writers; then the workspace store's own contract.
import type { ContractTestApi } from "./contract.api"
import { defineConcurrencyContract } from "./lifecycle-repository.concurrency.contract"
import { defineDatabaseContract } from "./lifecycle-repository.database.contract"
import type { ContractHarness } from "./lifecycle-repository.fixtures"
import { defineRecordsContract } from "./lifecycle-repository.records.contract"
import { defineWorkspaceStoreContract } from "./workspace-store.contract"

/** Registers every case of the lifecycle repository contract. */
export function defineLifecycleRepositoryContract(api: ContractTestApi, harness: ContractHarness): void {
  defineDatabaseContract(api, harness)
  defineRecordsContract(api, harness)
  defineConcurrencyContract(api, harness)
  defineWorkspaceStoreContract(api)
}
