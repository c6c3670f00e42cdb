// Runs the undo journal checks under opencode's Bun (bun:sqlite), the runtime the plugin really uses.
// Run: BUN_BE_BUN=1 node_modules/opencode-linux-x64/bin/opencode test/integration/files/journal.bun.ts
// Prints one line per check and a final `JOURNAL passed=<n> failed=<n>` line; exits 1 when a check fails.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { runtimeDriverName } from "../../../adapters/storage/sqlite.driver"
import { runChecks } from "../../bun/check.runner"
import { journalChecks } from "./journal.checks"

if (runtimeDriverName() !== "bun:sqlite") throw new Error(`expected to run on bun:sqlite, not ${runtimeDriverName()}`)

await runChecks(
  "JOURNAL",
  Object.entries(journalChecks).map(([name, body]) => {
    const run = async () => {
      const dir = mkdtempSync(path.join(tmpdir(), "forge-journal-"))
      try {
        await body(dir)
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }
    return [name, run] as const
  }),
)
