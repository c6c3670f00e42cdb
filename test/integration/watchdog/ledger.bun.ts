// Runs the watchdog ledger checks under opencode's Bun (bun:sqlite), the runtime the plugin really uses.
// Run: BUN_BE_BUN=1 node_modules/opencode-linux-x64/bin/opencode test/integration/watchdog/ledger.bun.ts
// Prints one line per check and a final `LEDGER passed=<n> failed=<n>` line; exits 1 when a check fails.
import { ledgerChecks } from "./ledger.checks"

let passed = 0
let failed = 0
for (const [name, body] of Object.entries(ledgerChecks)) {
  try {
    await body()
    passed += 1
    console.log(`ok - ${name}`)
  } catch (error) {
    failed += 1
    console.log(`not ok - ${name}\n${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
  }
}
console.log(`LEDGER passed=${passed} failed=${failed}`)
process.exitCode = failed === 0 ? 0 : 1
