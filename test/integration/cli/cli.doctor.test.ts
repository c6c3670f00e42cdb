import { spawnSync } from "node:child_process"
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, it } from "vitest"
import { databasePath } from "../../../adapters/storage/database.path"
import { SUPPORTED_OPENCODE } from "../../../src/cli.doctor"
import { ramTempDir } from "../../temp.dir"

// `forgecharts doctor` as a user runs it: opencode's version (the real pinned binary on PATH, another release, none),
// the sandbox, the database and forge.json, each check on a line, exit 1 when one fails. HOME and the config folder
// are the test's own, so no global forge.json of the machine is read.

const ROOT = path.resolve(import.meta.dirname, "../../..")

function doctor(workspace: string, pathDirs: string[], ...args: string[]) {
  const home = ramTempDir("forge-doctor-home-")
  // opencode writes a folder of its own under TMPDIR: the test's, removed with it.
  const env = {
    ...process.env,
    PATH: [...pathDirs, path.dirname(process.execPath), "/usr/bin", "/bin"].join(":"),
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    TMPDIR: ramTempDir("forge-doctor-tmp-"),
  }
  return spawnSync(path.join(ROOT, "node_modules/.bin/tsx"), [path.join(ROOT, "src/cli.ts"), "doctor", workspace, ...args], {
    encoding: "utf8",
    timeout: 60_000,
    env,
  })
}

/** A folder holding an `opencode` that prints `version`, as another release would. */
function opencodeSaying(version: string): string {
  const dir = ramTempDir("forge-doctor-bin-")
  writeFileSync(path.join(dir, "opencode"), `#!/bin/sh\necho ${version}\n`)
  chmodSync(path.join(dir, "opencode"), 0o755)
  return dir
}

describe("forgecharts doctor", () => {
  it("supports the opencode release the package pins", () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { devDependencies: Record<string, string> }
    expect(SUPPORTED_OPENCODE).toBe(pkg.devDependencies["opencode-ai"])
  })

  it("passes a fresh workspace with the supported opencode, and says what each check found", () => {
    const result = doctor(ramTempDir("forge-doctor-ws-"), [path.join(ROOT, "node_modules", ".bin")])
    expect(result.status, result.stderr).toBe(0)
    expect(result.stdout.split("\n").slice(0, 4)).toEqual([
      `ok    opencode: opencode ${SUPPORTED_OPENCODE}, the release Forge supports`,
      expect.stringMatching(/^ok {4}sandbox: bubblewrap starts here \(/),
      expect.stringMatching(/^ok {4}database: none yet in .*: Forge has not run here$/),
      "ok    forge.json: 0 worker(s) in 0 pool(s)",
    ])
  })

  it("warns of another opencode release and of none, naming the one to install", () => {
    const other = doctor(ramTempDir("forge-doctor-ws-"), [opencodeSaying("1.2.3")], "--json")
    expect(other.status, other.stderr).toBe(0)
    expect(JSON.parse(other.stdout)[0]).toEqual({
      check: "opencode",
      verdict: "warn",
      detail: `opencode 1.2.3 here; Forge is built and tested against ${SUPPORTED_OPENCODE} (npm install -g opencode-ai@${SUPPORTED_OPENCODE})`,
    })
    const none = doctor(ramTempDir("forge-doctor-ws-"), [], "--json")
    expect(JSON.parse(none.stdout)[0]).toMatchObject({ check: "opencode", verdict: "warn", detail: expect.stringMatching(/^no opencode on PATH; /) })
  })

  it("fails a forge.json that cannot be read and a database that is none, and exits 1", () => {
    const workspace = ramTempDir("forge-doctor-ws-")
    mkdirSync(path.join(workspace, ".opencode"), { recursive: true })
    writeFileSync(path.join(workspace, ".opencode", "forge.json"), "{ not json")
    const db = databasePath(workspace)
    mkdirSync(path.dirname(db), { recursive: true })
    writeFileSync(db, "this is no SQLite database, it only has its name")
    const result = doctor(workspace, [path.join(ROOT, "node_modules", ".bin")], "--json")
    expect(result.status).toBe(1)
    const checks = JSON.parse(result.stdout) as { check: string; verdict: string; detail: string }[]
    expect(checks.find((c) => c.check === "database")).toMatchObject({ verdict: "fail", detail: expect.stringContaining("Forge starts a new one") })
    expect(checks.find((c) => c.check === "forge.json")).toMatchObject({ verdict: "fail", detail: expect.stringContaining("syntax error at") })
  })
})
