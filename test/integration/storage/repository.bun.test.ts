// The lifecycle repository contract under Bun with `bun:sqlite`: the opencode binary becomes the Bun it embeds
// (BUN_BE_BUN=1) and runs test/bun/storage-contract.ts, which reports how many cases passed.
import { spawnSync } from "node:child_process"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { expect, it } from "vitest"
import { defineLifecycleRepositoryContract } from "./lifecycle-repository.contract"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")
const opencode = path.join(root, "node_modules/opencode-linux-x64/bin/opencode")

it("passes every contract case on bun:sqlite inside opencode's Bun", () => {
  let expected = 0
  // Counting the registered cases needs no driver: none of them runs here.
  defineLifecycleRepositoryContract(
    {
      test: () => {
        expected += 1
      },
    },
    { driverName: "bun:sqlite", openDriver: () => Promise.reject(new Error("not run")) },
  )

  const result = spawnSync(opencode, ["test/bun/storage-contract.ts"], {
    cwd: root,
    env: { ...process.env, BUN_BE_BUN: "1" },
    encoding: "utf8",
    timeout: 25_000,
  })
  const output = `${result.stdout}\n${result.stderr}`
  expect(result.error, output).toBeUndefined()
  expect(result.status, output).toBe(0)
  expect(output).toContain(`CONTRACT passed=${expected} failed=0`)
  expect(expected).toBeGreaterThan(0)
})
