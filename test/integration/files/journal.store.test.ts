// The undo journal over the real SQLite store and real files in a temp folder: every check on sqlite3 (Node) here,
// and all of them on bun:sqlite inside opencode's Bun (journal.bun.ts).
import { describe, expect, it } from "vitest"
import { runtimeDriverName } from "../../../adapters/storage/sqlite.driver"
import { runUnderOpencodeBun } from "../../bun.script"
import { tempDir } from "../../temp.dir"
import { journalChecks } from "./journal.checks"

describe("undo journal on sqlite3", () => {
  it("runs on the sqlite3 driver", () => {
    expect(runtimeDriverName()).toBe("sqlite3")
  })
  for (const [name, body] of Object.entries(journalChecks)) it(name, () => body(tempDir("forge-journal-")))
})

it("passes every journal check on bun:sqlite inside opencode's Bun", () => {
  const { status, output } = runUnderOpencodeBun("test/integration/files/journal.bun.ts")
  expect(status, output).toBe(0)
  expect(output).toContain(`JOURNAL passed=${Object.keys(journalChecks).length} failed=0`)
}, 30_000)
