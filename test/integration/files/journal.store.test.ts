// The undo journal over the real SQLite store and real files in a temp folder: every check on sqlite3 (Node) here,
// and all of them on bun:sqlite inside opencode's Bun (journal.bun.ts).
import { spawnSync } from "node:child_process"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { runtimeDriverName } from "../../../adapters/storage/sqlite.driver"
import { tempDir } from "../../temp.dir"
import { journalChecks } from "./journal.checks"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")

describe("undo journal on sqlite3", () => {
  it("runs on the sqlite3 driver", () => {
    expect(runtimeDriverName()).toBe("sqlite3")
  })
  for (const [name, body] of Object.entries(journalChecks)) it(name, () => body(tempDir("forge-journal-")))
})

it("passes every journal check on bun:sqlite inside opencode's Bun", () => {
  const result = spawnSync(path.join(root, "node_modules/opencode-linux-x64/bin/opencode"), ["test/integration/files/journal.bun.ts"], {
    cwd: root,
    env: { ...process.env, BUN_BE_BUN: "1" },
    encoding: "utf8",
    timeout: 25_000,
  })
  const output = `${result.stdout}\n${result.stderr}`
  expect(result.status, output).toBe(0)
  expect(output).toContain(`JOURNAL passed=${Object.keys(journalChecks).length} failed=0`)
}, 30_000)
