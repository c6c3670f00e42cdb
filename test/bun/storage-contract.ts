// Runs the lifecycle repository contract under Bun with `bun:sqlite` (the runtime inside opencode).
// Run: BUN_BE_BUN=1 node_modules/opencode-linux-x64/bin/opencode test/bun/storage-contract.ts
// Prints one line per case and a final `CONTRACT passed=<n> failed=<n>` line; exits 1 when a case fails.
import { openBunSqliteDriver } from "../../adapters/storage/bun-sqlite.driver"
import { defineLifecycleRepositoryContract } from "../integration/storage/lifecycle-repository.contract"
import { runChecks } from "./check.runner"

const cases: { name: string; body: () => Promise<void> }[] = []
defineLifecycleRepositoryContract({ test: (name, body) => cases.push({ name, body }) }, { driverName: "bun:sqlite", openDriver: openBunSqliteDriver })

await runChecks(
  "CONTRACT",
  cases.map(({ name, body }) => [name, body] as const),
)
