// The check after every vitest run (test/tmpdir.global-setup.ts): a run whose test leaves a folder in the OS temp dir
// (or the RAM temp dir) and a process running fails, naming them, and still leaves nothing behind.
import { spawnSync } from "node:child_process"
import { accessSync, constants, existsSync } from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { expect, it } from "vitest"
import { isAlive } from "../../../adapters/process/proc.table"

const writable = (dir: string): boolean => {
  try {
    accessSync(dir, constants.W_OK)
    return true
  } catch {
    return false
  }
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")

it("fails a run that leaves a folder or a process behind, names them, and removes and kills them", () => {
  const run = spawnSync(process.execPath, [path.join(root, "node_modules/vitest/vitest.mjs"), "run", "--config", "test/fixtures/leftovers/vitest.config.ts"], {
    cwd: root,
    encoding: "utf8",
    timeout: 120_000,
  })
  const output = `${run.stdout}\n${run.stderr}`
  const leaked = /LEAKED (\{.*\})/.exec(output)?.[1]
  expect(leaked, output).toBeDefined()
  const { dir, ramDir, pid } = JSON.parse(leaked ?? "{}") as { dir: string; ramDir: string | null; pid: number }

  expect(run.status, output).toBe(1)
  expect(output).toContain("the tests left 1 entry in the OS temp dir")
  expect(output).toContain(`${path.basename(dir)}/left.txt`)
  expect(output).toContain("the tests left 1 process(es) running (now killed)")
  expect(output).toMatch(new RegExp(`pid ${pid}: sleep 300`))
  // Where the machine has a RAM filesystem, the run's private dir there is checked the same way.
  expect(ramDir !== null, "a RAM temp dir where Linux has /dev/shm to write in").toBe(process.platform === "linux" && writable("/dev/shm"))
  if (ramDir !== null) {
    expect(output).toContain("the tests left 1 entry in the RAM temp dir")
    expect(output).toContain(`${path.basename(ramDir)}/left.txt`)
    expect(existsSync(path.dirname(ramDir))).toBe(false)
  }
  // The run's private temp dir went with what was in it, and the process is gone.
  expect(existsSync(path.dirname(dir))).toBe(false)
  expect(isAlive(pid)).toBe(false)
})
