// Runs the watchdog ledger checks under opencode's Bun (bun:sqlite), the runtime the plugin really uses.
// Run: BUN_BE_BUN=1 node_modules/opencode-linux-x64/bin/opencode test/integration/watchdog/ledger.bun.ts
// Prints one line per check and a final `LEDGER passed=<n> failed=<n>` line; exits 1 when a check fails.
import { runChecks } from "../../bun/check.runner"
import { ledgerChecks } from "./ledger.checks"

await runChecks("LEDGER", Object.entries(ledgerChecks))
