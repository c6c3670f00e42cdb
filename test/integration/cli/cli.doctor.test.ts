import { spawnSync } from "node:child_process"
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { pathToFileURL } from "node:url"
import { describe, expect, it } from "vitest"
import { databasePath } from "../../../adapters/storage/database.path"
import { SUPPORTED_OPENCODE } from "../../../src/cli.doctor"
import { pluginLoadCheck, pluginModuleFor } from "../../../src/cli.doctor.plugin"
import { ramTempDir } from "../../temp.dir"

// `forgecharts doctor` as a user runs it: opencode's version (the real pinned binary on PATH, another release, none),
// the plugin module (this checkout's, and modules that break as opencode would find them broken), the opencode configs
// (real files in a temp workspace and a temp HOME), the sandbox, the database and forge.json, each check on a line,
// exit 1 when one fails. HOME and the config folder are the test's own, so no config of the machine is read.

const ROOT = path.resolve(import.meta.dirname, "../../..")

function doctor(workspace: string, pathDirs: string[], ...args: string[]) {
  return doctorAt(ramTempDir("forge-doctor-home-"), workspace, pathDirs, ...args)
}

/** doctor with `home` as HOME (its `.config` the user's opencode config folder). */
function doctorAt(home: string, workspace: string, pathDirs: string[], ...args: string[]) {
  return spawnSync(path.join(ROOT, "node_modules/.bin/tsx"), [path.join(ROOT, "src/cli.ts"), "doctor", workspace, ...args], {
    encoding: "utf8",
    timeout: 60_000,
    env: doctorEnv(home, pathDirs),
  })
}

function doctorEnv(home: string, pathDirs: string[]): NodeJS.ProcessEnv {
  // opencode writes a folder of its own under TMPDIR: the test's, removed with it.
  return {
    ...process.env,
    PATH: [...pathDirs, path.dirname(process.execPath), "/usr/bin", "/bin"].join(":"),
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    TMPDIR: ramTempDir("forge-doctor-tmp-"),
  }
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
    expect(result.stdout.split("\n").slice(0, 6)).toEqual([
      `ok    opencode: opencode ${SUPPORTED_OPENCODE}, the release Forge supports`,
      `ok    plugin: ${path.join(ROOT, "src", "server.ts")} loads and exports the plugin function opencode calls (id "forgecharts")`,
      expect.stringMatching(/^warn {2}config: no opencode config here lists forgecharts, so opencode does not load Forge: add "plugin": \["forgecharts"\] to /),
      expect.stringMatching(/^ok {4}sandbox: bubblewrap starts here \(/),
      expect.stringMatching(/^ok {4}database: none yet in .*: Forge has not run here$/),
      "ok    forge.json: 0 worker(s) in 0 pool(s)",
    ])
    // Piped: the results only, no progress on stderr.
    expect(result.stderr).toBe("")
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

  it("on a terminal shows each check in progress on stderr, overwritten by its result line", () => {
    // util-linux's `script` runs doctor on a pseudo-terminal: stdout and stderr are both the terminal, as a user's are.
    const pty = "script"
    const command = [path.join(ROOT, "node_modules/.bin/tsx"), path.join(ROOT, "src/cli.ts"), "doctor", ramTempDir("forge-doctor-ws-")].join(" ")
    const result = spawnSync(pty, ["-qec", command, "/dev/null"], {
      encoding: "utf8",
      timeout: 60_000,
      env: doctorEnv(ramTempDir("forge-doctor-home-"), []),
    })
    expect(result.status, result.stderr).toBe(0)
    const screen = result.stdout
    for (const name of ["opencode", "plugin", "config", "sandbox", "database", "forge.json"])
      expect(screen).toMatch(new RegExp(`\\r\\x1b\\[2Kchecking ${name.replace(".", "\\.")}…\\r\\x1b\\[2K(ok|warn|fail) +${name.replace(".", "\\.")}: `))
  })

  describe("config: whether opencode is told to load Forge here", () => {
    const bin = [path.join(ROOT, "node_modules", ".bin")]
    const configCheck = (home: string, workspace: string) => {
      const result = doctorAt(home, workspace, bin, "--json")
      const checks = JSON.parse(result.stdout) as { check: string; verdict: string; detail: string }[]
      return { status: result.status, config: checks.find((c) => c.check === "config") }
    }
    const userConfig = (home: string, name: string, text: string) => {
      const dir = path.join(home, ".config", "opencode")
      mkdirSync(dir, { recursive: true })
      writeFileSync(path.join(dir, name), text)
      return path.join(dir, name)
    }

    it("finds forgecharts by name in the user's JSONC config, and warns of options that are not Forge's", () => {
      const home = ramTempDir("forge-doctor-home-")
      const file = userConfig(
        home,
        "opencode.jsonc",
        `{\n  // Forge, with options\n  "plugin": ["other-plugin", ["forgecharts@0.1.0", { "jobs": { "survive": "sometimes" }, "colour": 1 }],],\n}\n`,
      )
      const { status, config } = configCheck(home, ramTempDir("forge-doctor-ws-"))
      expect(status).toBe(0)
      expect(config).toEqual({
        check: "config",
        verdict: "warn",
        detail: `forgecharts is loaded from ${file} ("forgecharts@0.1.0"); ${file}: the options given to "forgecharts@0.1.0": option jobs.survive: "sometimes" is invalid (Invalid option: expected one of "never"|"always"|"deny"); using the default "never"; option colour is not a Forge option; ignored (see docs/configuration.md)`,
      })
    })

    it("finds a file URL or a path to this package in the workspace's config, and the single-file install", () => {
      const home = ramTempDir("forge-doctor-home-")
      const workspace = ramTempDir("forge-doctor-ws-")
      const url = pathToFileURL(path.join(ROOT, "src", "server.ts")).href
      writeFileSync(path.join(workspace, "opencode.json"), JSON.stringify({ plugin: [url, [ROOT, { jobs: { survive: "always" } }]] }))
      mkdirSync(path.join(home, ".config", "opencode", "plugin"), { recursive: true })
      const single = path.join(home, ".config", "opencode", "plugin", "forgecharts.js")
      writeFileSync(single, "export default {}\n")
      const { config } = configCheck(home, workspace)
      const file = path.join(workspace, "opencode.json")
      expect(config).toEqual({
        check: "config",
        verdict: "ok",
        detail: `forgecharts is loaded from ${file} ("${url}"), ${file} ("${ROOT}"), ${single} (the single-file install)`,
      })
    })

    it("warns of an entry that means Forge but leads to nothing of it", () => {
      const workspace = ramTempDir("forge-doctor-ws-")
      const missing = path.join(workspace, "vendor", "forgecharts")
      writeFileSync(path.join(workspace, "opencode.json"), JSON.stringify({ plugin: ["./vendor/forgecharts"] }))
      const { config } = configCheck(ramTempDir("forge-doctor-home-"), workspace)
      expect(config?.verdict).toBe("warn")
      expect(config?.detail).toContain(
        `${path.join(workspace, "opencode.json")}: the plugin entry "./vendor/forgecharts" names ${missing}, which does not exist`,
      )
      expect(config?.detail).toContain("no opencode config here lists forgecharts")
    })

    it("fails a damaged config with where it breaks, and a plugin list that is none, and exits 1", () => {
      const home = ramTempDir("forge-doctor-home-")
      const workspace = ramTempDir("forge-doctor-ws-")
      mkdirSync(path.join(workspace, ".opencode"))
      const damaged = path.join(workspace, ".opencode", "opencode.jsonc")
      writeFileSync(damaged, `{\n  "plugin": ["forgecharts"\n  "model": "x"\n}\n`)
      const notList = userConfig(home, "opencode.json", `{ "plugin": "forgecharts" }`)
      const { status, config } = configCheck(home, workspace)
      expect(status).toBe(1)
      expect(config).toEqual({
        check: "config",
        verdict: "fail",
        detail: expect.stringContaining(`${notList} line 1:13: "plugin" must be a list of plugin specs or [spec, options] pairs`),
      })
      expect(config?.detail).toContain(`${damaged} cannot be read at line 3:3: CommaExpected; opencode does not start until it is fixed`)
    })
  })

  describe("plugin: whether the plugin module loads as opencode loads it", () => {
    const module = (text: string) => {
      const file = path.join(ramTempDir("forge-doctor-plugin-"), "server.js")
      writeFileSync(file, text)
      return file
    }

    it("finds the module beside the built CLI, from a chunk of it, and beside cli.ts in a checkout", () => {
      const dist = ramTempDir("forge-doctor-dist-")
      expect(pluginModuleFor(path.join(dist, "cli.js"))).toEqual({
        file: null,
        looked: [path.join(dist, "server.js"), path.join(path.dirname(dist), "server.js")],
      })
      writeFileSync(path.join(dist, "server.js"), "")
      expect(pluginModuleFor(path.join(dist, "cli.js")).file).toBe(path.join(dist, "server.js"))
      expect(pluginModuleFor(path.join(dist, "cli", "chunk-1.js")).file).toBe(path.join(dist, "server.js"))
      expect(pluginModuleFor(path.join(ROOT, "src", "cli.ts")).file).toBe(path.join(ROOT, "src", "server.ts"))
    })

    it("says what a module opencode could not load does wrong", () => {
      const throwing = module(`throw new Error("the plugin's start broke")\n`)
      expect(pluginLoadCheck(throwing)).toEqual({ check: "plugin", verdict: "fail", detail: `${throwing}: importing it throws: the plugin's start broke` })
      const serverless = module("export default { id: 'forgecharts' }\n")
      expect(pluginLoadCheck(serverless)).toEqual({
        check: "plugin",
        verdict: "fail",
        detail: `${serverless}: its default export has no server function, the plugin function opencode calls (exports: default)`,
      })
      const extra = module("export const helper = 1\nexport default { id: 'forgecharts', server: async () => ({}) }\n")
      expect(pluginLoadCheck(extra)).toMatchObject({
        verdict: "fail",
        detail: `${extra}: it exports helper besides the default; opencode refuses a plugin module with any other export`,
      })
      const chatty = module("console.log('loading…')\nexport default { id: 'forgecharts', server: async () => ({}) }\n")
      expect(pluginLoadCheck(chatty)).toEqual({
        check: "plugin",
        verdict: "ok",
        detail: `${chatty} loads and exports the plugin function opencode calls (id "forgecharts")`,
      })
    })
  })
})
