// Tests of the e2e harness itself, against the probe plugin in test/fixtures/probe-plugin/. They run the real
// opencode binary, so they are sequential and each gets a generous timeout.
import { spawnSync } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { loadScenarioFile, parseScenario, runScenario, ScenarioFileError, type ScenarioResult } from "./index"
import { REPO_ROOT } from "./sandbox"

const HARNESS_SCENARIOS = path.join(REPO_ROOT, "test", "e2e", "scenarios", "harness")
const E2E_TIMEOUT = 120_000
const PROBE = "test/fixtures/probe-plugin/probe.ts"

function explain(result: ScenarioResult): string {
  return `${result.failures.join("\n")}\n--- diagnostics (tail) ---\n${result.diagnostics.slice(-6_000)}`
}

function problemsOf(value: unknown): string[] {
  try {
    parseScenario(value, "inline")
  } catch (err) {
    if (err instanceof ScenarioFileError) return err.problems
    throw err
  }
  return []
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "forge-e2e-harness-test-"))
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }))

describe.sequential("e2e harness", () => {
  it(
    "runs a run-mode scenario against the probe plugin and removes its temp root",
    async () => {
      const lines: string[] = []
      const result = await runScenario(path.join(HARNESS_SCENARIOS, "probe-run.json"), { log: (l) => lines.push(l) })
      expect(result.passed, explain(result)).toBe(true)
      expect(result.failedCount).toBe(0)
      expect(result.passedCount).toBe(result.checks.length)
      expect(result.toolResults.map((r) => `${r.turn}:${r.tool}:${r.status}`)).toEqual([
        "1:probe_echo:completed",
        "1:probe_state:completed",
        "1:probe_fail:error",
        "2:write:completed",
        "2:probe_state:completed",
      ])
      expect(result.transitions.map((t) => `${t.from}>${t.to}`)).toEqual(["none>draft", "draft>approved"])
      expect(lines).toContain("  transition plan p1: none --write--> draft")
      const root = /^ {2}root (\S+)$/m.exec(lines.join("\n"))?.[1]
      expect(root).toBeDefined()
      expect(fs.existsSync(root as string)).toBe(false)
    },
    E2E_TIMEOUT,
  )

  it(
    "runs a serve-mode scenario with permission replies, a plugin follow-up and a restart, then stops the server",
    async () => {
      const lines: string[] = []
      const result = await runScenario(path.join(HARNESS_SCENARIOS, "probe-serve.json"), { log: (l) => lines.push(l) })
      expect(result.passed, explain(result)).toBe(true)
      // The first turn's calls are still in the session after the restart: the session was continued.
      expect(result.toolResults.map((r) => `${r.turn}:${r.tool}:${r.status}`)).toEqual([
        "1:probe_gate:completed",
        "1:probe_state:completed",
        "1:probe_followup:completed",
        "3:probe_state:completed",
        "3:probe_gate:error",
      ])
      // The plugin's follow-up prompt (sent on idle) was answered before the turn ended.
      expect(result.modelRequests.filter((r) => r.kind === "step").map((r) => `${r.index}@${r.turn}`)).toEqual(["1@1", "2@1", "3@1", "4@1", "5@3", "6@3"])
      expect(lines).toContain("  permission probe_gate (release) → reject")
      const urls = [...lines.join("\n").matchAll(/^ {2}server (\S+)$/gm)].map((m) => m[1] as string)
      expect(urls).toHaveLength(2)
      for (const url of urls) await expect(fetch(url)).rejects.toThrow()
    },
    E2E_TIMEOUT,
  )

  it(
    "reports failed expectations, an exhausted model script and an unanswered permission ask without throwing",
    async () => {
      const result = await runScenario({
        name: "failing",
        mode: "serve",
        pluginPath: PROBE,
        turns: [{ prompt: "go" }],
        model: [{ tool: "probe_gate", args: { subject: "x" } }],
        expect: {
          files: [{ path: "never-written.txt" }],
          toolResults: [{ tool: "probe_echo" }, { tool: "probe_gate", status: "completed" }],
          lifecycles: [{ machine: "plan", state: "draft" }],
        },
      })
      expect(result.passed).toBe(false)
      expect(result.failures).toEqual([
        'permission ask "probe_gate" has a scripted reply: patterns: x',
        "files[0] never-written.txt: no such file",
        "toolResults[0] probe_echo #1: probe_echo ran 0 time(s); tool calls seen: probe_gate",
        "toolResults[1] probe_gate #1 completed: status is error; output: The user rejected permission to use this specific tool call.",
        "lifecycles[0] plan is draft: no lifecycle store (database file missing)",
      ])
      // A single-file install (copied into the global plugin/ dir) whose one tool call is the whole script.
      const exhausted = await runScenario({
        install: "single-file",
        pluginPath: "test/fixtures/probe-plugin/probe-single.js",
        turns: [{ prompt: "go" }],
        model: [{ tool: "probe_single", args: { text: "a" } }],
        expect: { toolResults: [{ tool: "probe_single", status: "completed", contains: "single:a" }] },
      })
      expect(exhausted.failures).toEqual([
        'model script long enough: model script exhausted at request 2 (turn 1); the fake answered "(e2e model script exhausted)"',
      ])
    },
    E2E_TIMEOUT,
  )

  it("rejects a scenario file with an unknown key, naming the key path", () => {
    const file = path.join(HARNESS_SCENARIOS, "unknown-key.json")
    expect(() => loadScenarioFile(file)).toThrow(ScenarioFileError)
    expect(() => loadScenarioFile(file)).toThrow(/unknown-key\.json: invalid scenario\n {2}- turns\[0\]\.promt: unknown key "promt"/)
    return expect(runScenario(file)).rejects.toBeInstanceOf(ScenarioFileError)
  })

  it("names the path of every schema problem, including mode-specific keys and bad regexes", () => {
    // Shape problems and cross-field rules are all reported in one go.
    expect(
      problemsOf({
        mode: "run",
        install: "single-file",
        pluginOptions: { a: 1 },
        turns: [{ restart: true }, { prompt: "x", command: "y" }],
        model: [{ tool: "t", arg: {} }, [{ tool: "a", args: {}, extra: 1 }], { text: "x", args: {} }],
        permissions: [{ permission: "p", reply: "once" }],
        expect: { files: [{ path: "../escape", matches: "(" }], logs: [{ matches: "[" }] },
      }),
    ).toEqual([
      'turns[1]: a turn needs exactly one of "prompt", "command" or "restart"',
      'model[0].arg: unknown key "arg"',
      'model[1][0].extra: unknown key "extra"',
      'model[2].args: "args" belongs to a "tool" step',
      "expect.files[0].path: must be a relative path inside the project (no leading / and no ..)",
      "expect.files[0].matches: not a valid regular expression",
      "expect.logs[0].matches: not a valid regular expression",
      'permissions: permission replies need "mode": "serve"; in run mode use "auto": true (approve every ask) or leave it off (reject every ask)',
      'turns[0].restart: restart turns need "mode": "serve" (every run-mode turn is already a fresh process)',
      "pluginOptions: plugin options cannot be passed to a single-file install (opencode loads files in plugin/ without options)",
    ])
    expect(
      problemsOf({
        mode: "serve",
        auto: true,
        turns: [
          { prompt: "x", exitCode: 0 },
          { restart: true, settleMs: 100, timeoutMs: 9000, agent: "forge" },
        ],
      }),
    ).toEqual([
      'turns[1].agent: "agent" does not apply to a restart turn',
      'auto: "auto" applies to run mode only; in serve mode list "permissions" replies',
      'turns[0].exitCode: "exitCode" applies to run mode only',
    ])
  })

  it("CLI: resolves a scenario path from the cwd, exits 2 for an invalid file and 1 for a failed check", () => {
    const cli = path.join(REPO_ROOT, "test", "e2e", "cli.ts")
    const tsx = path.join(REPO_ROOT, "node_modules", ".bin", "tsx")
    fs.copyFileSync(path.join(HARNESS_SCENARIOS, "unknown-key.json"), path.join(scratch, "bad.json"))
    fs.writeFileSync(
      path.join(scratch, "missing-plugin.json"),
      JSON.stringify({ install: "single-file", pluginPath: "does/not/exist.js", turns: [{ prompt: "x" }] }),
    )
    const bad = spawnSync(tsx, [cli, "bad.json"], { cwd: scratch, encoding: "utf8" })
    expect(bad.status).toBe(2)
    expect(bad.stderr).toContain(`${path.join(scratch, "bad.json")}: invalid scenario`)
    expect(bad.stderr).toContain('turns[0].promt: unknown key "promt"')
    const failing = spawnSync(tsx, [cli, "missing-plugin.json"], { cwd: scratch, encoding: "utf8" })
    expect(failing.status).toBe(1)
    expect(failing.stdout).toContain(`FAIL setup — plugin for install "single-file" not found at ${path.join(REPO_ROOT, "does/not/exist.js")}`)
    expect(failing.stdout.trimEnd().split("\n").at(-1)).toBe("0 passed, 1 failed")
  }, 30_000)
})
