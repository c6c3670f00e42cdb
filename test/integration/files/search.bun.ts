// Runs forge_search's hostile-pattern checks under opencode's Bun, the runtime the plugin really uses (its regex
// engine gives up on a backtracking pattern and reports no match, where Node's runs on).
// Run: BUN_BE_BUN=1 node_modules/opencode-linux-x64/bin/opencode test/integration/files/search.bun.ts
// Prints one line per check and a final `SEARCH passed=<n> failed=<n>` line; exits 1 when a check fails.
import { runChecks } from "../../bun/check.runner"
import { searchChecks } from "./search.checks"

const checks = searchChecks()
try {
  await runChecks("SEARCH", Object.entries(checks.cases))
} finally {
  checks.close()
}
