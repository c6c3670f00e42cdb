// Runs the lifecycle repository contract under Bun with `bun:sqlite` (the runtime inside opencode).
// Run: BUN_BE_BUN=1 node_modules/opencode-linux-x64/bin/opencode test/bun/storage-contract.ts
// Prints one line per case and a final `CONTRACT passed=<n> failed=<n>` line; exits 1 when a case fails.
import { openBunSqliteDriver } from "../../adapters/storage/bun-sqlite.driver"
import { defineLifecycleRepositoryContract } from "../integration/storage/lifecycle-repository.contract"

const cases: { name: string; body: () => Promise<void> }[] = []
defineLifecycleRepositoryContract(
  { test: (name, body) => cases.push({ name, body }) },
  { driverName: "bun:sqlite", openDriver: openBunSqliteDriver },
)

let passed = 0
let failed = 0
for (const { name, body } of cases) {
  try {
    await body()
    passed += 1
    console.log(`ok - ${name}`)
  } catch (error) {
    failed += 1
    console.log(`not ok - ${name}\n${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
  }
}
console.log(`CONTRACT passed=${passed} failed=${failed}`)
process.exitCode = failed === 0 ? 0 : 1
