import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { databasePath } from "../../../adapters/storage/database.path"
import type { GoalCheck } from "../../../services/goal/goal.contract"
import { seedMigratedDatabase } from "../../model/migrated.database"
import { openGoalProcess } from "../../model/goal.process"
import { ramTempDir } from "../../temp.dir"

// The CLI as scripts use it: every command's --help, --json forms that parse, and the documented exit codes (0 done,
// 1 failed, 2 a usage error), on a workspace whose database holds a real goal.

const ROOT = path.resolve(import.meta.dirname, "../../..")
const cli = (...args: string[]) =>
  spawnSync(path.join(ROOT, "node_modules/.bin/tsx"), [path.join(ROOT, "src/cli.ts"), ...args], { encoding: "utf8", timeout: 60_000 })

let dir = ""
let goalPath = ""

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "forge-cli-json-"))
  await seedMigratedDatabase(dir)
  const process = await openGoalProcess(dir, Date.parse("2026-12-05T08:00:00.000Z"))
  const checks: GoalCheck[] = [{ kind: "command", command: "true", timeoutS: 10 }]
  process.runner.checks = checks
  const contract = { objective: "ship it", success: [], checks, constraints: [], nonGoals: [], budgets: { maxTurns: 3, maxMinutes: 10 } }
  goalPath = (await process.service.write("ses_cli", contract, { by: "user" })).goalPath
  await process.rt.close()
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("forgecharts --json and exit codes", () => {
  it("status --json: the sandbox, the database and every instance with its driver", () => {
    const result = cli("status", dir, "--json")
    expect(result.status, result.stderr).toBe(0)
    const report = JSON.parse(result.stdout)
    expect(report).toMatchObject({ workspace: dir, database: databasePath(dir), damaged: [], sandbox: { starts: expect.any(Boolean) } })
    expect(report.instances).toEqual([
      expect.objectContaining({
        machine: "goal",
        state: "active.working",
        final: false,
        instance: goalPath,
        session: "ses_cli",
        driver: expect.stringMatching(/driven|not driven/),
      }),
    ])
  })

  it("log --json: the transitions, filtered as asked", () => {
    const result = cli("log", dir, "--json", "--machine", "goal")
    expect(result.status, result.stderr).toBe(0)
    const entries = JSON.parse(result.stdout) as { event: string; to: string; machine: string }[]
    expect(entries.map((e) => `${e.event} -> ${e.to}`)).toEqual([
      "xstate.init -> queued.waiting",
      "goal.arm -> queued.arming",
      "dialog.allow -> active.working",
    ])
    expect(JSON.parse(cli("log", dir, "--json", "--machine", "plan").stdout)).toEqual([])
  })

  it("db --json, and a workspace Forge never ran in: nothing is created", () => {
    expect(JSON.parse(cli("db", dir, "--json").stdout)).toEqual({ path: databasePath(dir) })
    const empty = ramTempDir("forge-cli-empty-")
    expect(JSON.parse(cli("status", empty, "--json").stdout)).toMatchObject({ database: null, instances: [] })
    expect(JSON.parse(cli("log", empty, "--json").stdout)).toEqual([])
  })

  it("--help for every command; a usage error exits 2 naming what was wrong", () => {
    for (const command of ["status", "log", "db", "viz", "inspect", "jobs", "doctor", "paths"]) {
      const help = cli(command, "--help")
      expect(help.status).toBe(0)
      expect(help.stdout).toMatch(new RegExp(`^usage: forgecharts ${command} `))
      expect(help.stdout).toContain("exit codes: 0 done, 1 the command failed, 2 a usage error")
    }
    const bad = [
      [["launch"], /^forgecharts: unknown command "launch"/],
      [["log", "--bogus"], /^forgecharts log: Unknown option '--bogus'/],
      [["status", "--machine", "goal"], /^forgecharts status: --machine, --instance and --session belong to log/],
      [["db", "a", "b"], /^forgecharts db: one workspace at most \(got "a" and "b"\)/],
      [["viz", "--json"], /^forgecharts viz: --json is not one of its options/],
      [["inspect", dir, "--port", "http"], /^forgecharts inspect: --port "http" is not a port: give 0-65535/],
      [["inspect", path.join(dir, "no-such-folder")], /^forgecharts inspect: no folder .*no-such-folder: give the workspace to inspect/],
      [["status", "--port", "4000"], /^forgecharts status: --port belongs to inspect/],
    ] as const
    for (const [args, message] of bad) {
      const result = cli(...args)
      expect(result.status, args.join(" ")).toBe(2)
      expect(result.stderr).toMatch(message)
    }
    expect(cli().status, "no command").toBe(2)
  })

  it("a database it cannot read exits 1 with why", () => {
    const broken = ramTempDir("forge-cli-broken-")
    const db = databasePath(broken)
    mkdirSync(path.dirname(db), { recursive: true })
    writeFileSync(db, "this is no SQLite database")
    const result = cli("log", broken)
    expect(result.status).toBe(1)
    expect(result.stderr).toMatch(/^forgecharts: /)
  })
})
