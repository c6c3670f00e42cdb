// Tests of the e2e harness itself, against the probe plugin in test/fixtures/probe-plugin/. They run the real
// opencode binary, two at a time (the machine's lanes decide how many opencode run at once), each with a generous
// timeout.
import { spawnSync } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { evaluateExpectations } from "./expectations"
import {
  closeSharedHosts,
  loadScenarioFile,
  type ModelRequestRecord,
  parseScenario,
  runScenario,
  ScenarioFileError,
  type ScenarioInput,
  type ScenarioResult,
  scenarioHost,
} from "./index"
import { REPO_ROOT } from "./sandbox"
import { startWebPages } from "./web-pages"

const HARNESS_SCENARIOS = path.join(REPO_ROOT, "test", "e2e", "scenarios", "harness")
const E2E_TIMEOUT = 120_000
const PROBE = "test/fixtures/probe-plugin/probe.ts"

function explain(result: ScenarioResult): string {
  return `${result.failures.join("\n")}\n--- diagnostics (tail) ---\n${result.diagnostics.slice(-6_000)}`
}

/** Processes whose TMPDIR lies inside `root` (Linux /proc): what a scenario left running there. */
function processesIn(root: string): string[] {
  const found: string[] = []
  for (const pid of fs.readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
    try {
      const tmp = fs
        .readFileSync(`/proc/${pid}/environ`, "utf8")
        .split("\0")
        .find((v) => v.startsWith("TMPDIR="))
      if (tmp?.slice("TMPDIR=".length).startsWith(root)) found.push(`${pid}: ${fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ")}`)
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found
}

/** Processes working in `root` or below (Linux /proc): what a scenario on a shared host left running there. */
function processesWorkingIn(root: string): string[] {
  const found: string[] = []
  for (const pid of fs.readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
    try {
      const cwd = fs.readlinkSync(`/proc/${pid}/cwd`)
      if (cwd === root || cwd.startsWith(`${root}/`)) found.push(`${pid}: ${fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ")}`)
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found
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
afterAll(async () => {
  await closeSharedHosts()
  fs.rmSync(scratch, { recursive: true, force: true })
})

describe.concurrent("e2e harness", () => {
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
    "runs turns on two servers of one session, two of them at the same time, and restarts one server",
    async () => {
      const lines: string[] = []
      const result = await runScenario(path.join(HARNESS_SCENARIOS, "probe-servers.json"), { log: (l) => lines.push(l) })
      expect(result.passed, explain(result)).toBe(true)
      // Each call is attributed to the server that asked for it and the turn running there, also when two turns
      // ran at the same time (the order of their calls in the session is not fixed, hence the sort).
      expect(result.toolResults.map((r) => `${r.turn}@${r.server}:${r.tool}:${r.status}`).sort()).toEqual([
        "1@2:probe_state:completed",
        "2@1:probe_gate:completed",
        "2@1:probe_state:completed",
        "3@2:probe_gate:error",
        "5@1:probe_echo:completed",
      ])
      // The first requests of the concurrent turns 2 and 3 were held until both had asked; what the loops asked
      // beyond their tagged steps got the closing text, numbered with no script step.
      const steps = result.modelRequests.filter((r) => r.kind === "step")
      expect(steps.map((r) => `${r.index}@${r.server}`).slice(0, 2)).toEqual(["1@2", "2@2"])
      expect(
        steps
          .slice(2, 4)
          .map((r) => r.server)
          .sort(),
      ).toEqual([1, 2])
      expect(steps.slice(4).map((r) => `${r.index}@${r.server}:${r.turn}`)).toEqual(["5@1:5", "6@1:5"])
      expect(result.modelRequests.filter((r) => r.kind === "closing").every((r) => r.index === 0)).toBe(true)
      expect(lines).toContain("  permission probe_gate (b) → reject [server 2]")
      expect(lines).toContain("  permission probe_gate (a) → once [server 1]")
      // Server 1, server 2, server 2 again after its restart: every one is stopped.
      const urls = [...lines.join("\n").matchAll(/^ {2}server (\S+) \[server \d\]$/gm)].map((m) => m[1] as string)
      expect(urls).toHaveLength(3)
      for (const url of urls) await expect(fetch(url)).rejects.toThrow()
    },
    E2E_TIMEOUT,
  )

  it(
    "runs a TUI-mode scenario in a private tmux server: typed prompts and commands, keys, a permission dialog, screens",
    async () => {
      const lines: string[] = []
      const result = await runScenario(path.join(HARNESS_SCENARIOS, "probe-tui.json"), { log: (l) => lines.push(l) })
      expect(result.passed, explain(result)).toBe(true)
      // The gate's call waited in the dialog through turn 2 and was allowed by the Enter of turn 3.
      expect(result.toolResults.map((r) => `${r.turn}:${r.tool}:${r.status}`)).toEqual(["2:probe_gate:completed", "4:bash:completed"])
      expect(result.toolResults[1]).toMatchObject({ title: "echo tui-bash", metadata: { exit: 0 } })
      // Every step was asked during the turn that typed it: the screen waits ended each turn at the right time.
      expect(result.modelRequests.filter((r) => r.kind === "step").map((r) => `${r.index}@${r.turn}`)).toEqual(["1@1", "2@2", "3@3", "4@4", "5@4", "6@6"])
      expect(lines).toContain("turn 4 command: /probe-cmd from the tui")
      expect(lines).toContain('turn 6 keys: Tab "please" Enter')
      expect(lines).toContain("  permission probe_gate (deploy) asked: the TUI shows the dialog")
      // Torn down: the TUI's server no longer answers, no process runs in the root, and the root (with the tmux
      // socket dir) is gone.
      const [, url, socket] = /^ {2}tui (\S+) \(160×45, tmux -L (\S+)\)$/m.exec(lines.join("\n")) ?? []
      expect(socket).toMatch(/^forge-e2e-/)
      await expect(fetch(url as string)).rejects.toThrow()
      const root = /^ {2}root (\S+)$/m.exec(lines.join("\n"))?.[1] as string
      expect(processesIn(root)).toEqual([])
      expect(fs.existsSync(root)).toBe(false)
    },
    E2E_TIMEOUT,
  )

  it(
    "TUI mode: a screen that never shows fails its turn, prints the screen and the scenario goes on",
    async () => {
      const lines: string[] = []
      const result = await runScenario(
        {
          name: "tui-failing",
          mode: "tui",
          pluginPath: PROBE,
          tui: { width: 120, height: 40 },
          turns: [
            // Long enough for the TUI to draw the typed prompt on a loaded machine (the wait always runs out).
            { prompt: "first words", screen: { contains: "NEVER ON SCREEN" }, timeoutMs: 10_000 },
            // Also waits for the answer, which the first turn may not have seen yet.
            { keys: [{ text: "still typed" }], screen: { contains: ["still typed", "an answer"] } },
          ],
          model: [{ text: "an answer" }],
          expect: {
            toolResults: [{ tool: "probe_echo", title: { contains: "x" } }],
            userMessages: [{ message: 2, shown: { contains: "still typed" } }, { hidden: { contains: "anything" } }],
            screen: { contains: "still typed", notContains: "an answer" },
          },
        },
        { log: (l) => lines.push(l) },
      )
      expect(result.failures.map((f) => f.split("\n")[0])).toEqual([
        'turn 1 screen: does not contain "NEVER ON SCREEN"',
        "toolResults[0] probe_echo #1: probe_echo ran 0 time(s); tool calls seen: none",
        "userMessages[0] user message #2: the session has 1 user message(s)",
        'userMessages[1] last user message: hidden text does not contain "anything"; shown: first words; hidden: ',
        'screen after the last turn: contains "an answer"; final screen:',
      ])
      // The failed wait printed the screen it saw (the typed prompt on it), behind the margin.
      const at = lines.indexOf('  screen after turn 1 (does not contain "NEVER ON SCREEN"):')
      expect(at).toBeGreaterThan(0)
      const screen: string[] = []
      for (const line of lines.slice(at + 1)) {
        if (!line.startsWith("    |")) break
        screen.push(line)
      }
      expect(screen.join("\n")).toMatch(/^ {4}\|[\s\S]*first words/)
      expect(lines).toContain('turn 2 keys: "still typed"')
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
      'turns[1]: a turn needs exactly one of "prompt", "command", "restart" or "keys"',
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

  it("until: a serve-mode turn's wait for a lifecycle state, strict as an expect.lifecycles entry, refused in run and TUI mode", () => {
    expect(
      problemsOf({
        mode: "serve",
        turns: [
          { prompt: "x", until: { machine: "loop", state: "completed", terminal: true } },
          { restart: true, until: { machine: "goal", state: "paused" } },
        ],
      }),
    ).toEqual([])
    expect(problemsOf({ mode: "serve", turns: [{ prompt: "x", until: { machine: "loop", stat: "completed" } }] })).toEqual([
      "turns[0].until.state: missing (expected string)",
      'turns[0].until.stat: unknown key "stat"',
    ])
    expect(problemsOf({ mode: "run", turns: [{ prompt: "x", until: { machine: "loop", state: "completed" } }] })).toEqual([
      'turns[0].until: "until" applies to serve mode only',
    ])
    expect(problemsOf({ mode: "tui", turns: [{ prompt: "x", until: { machine: "loop", state: "completed" } }] })).toEqual([
      'turns[0].until: "until" applies to serve mode only',
    ])
  })

  it("host: serve mode shares its lane's host unless the scenario reaches past its project; shared is refused where it cannot be", () => {
    const serve = (extra: Record<string, unknown>) => parseScenario({ mode: "serve", turns: [{ prompt: "x" }], ...extra })
    expect(scenarioHost(serve({}))).toBe("shared")
    expect(scenarioHost(serve({ host: "own" }))).toBe("own")
    expect(scenarioHost(parseScenario({ turns: [{ prompt: "x" }] }))).toBe("own")
    expect(scenarioHost(serve({ env: { A: "1" } }))).toBe("own")
    expect(scenarioHost(serve({ turns: [{ prompt: "x" }, { restart: true }] }))).toBe("own")
    expect(problemsOf({ host: "shared", turns: [{ prompt: "x" }] })).toEqual([
      "host: a shared host serves serve-mode scenarios only; run mode starts opencode run for every turn",
    ])
    expect(
      problemsOf({
        mode: "serve",
        host: "shared",
        servers: 2,
        env: { FORGE_TEST_GOAL_DEBOUNCE_MS: "2000" },
        logLevel: "DEBUG",
        workspace: { files: { ".opencode/opencode.json": "{}", ".opencode/forge.json": "{}" } },
        turns: [{ prompt: "{{home}}" }, { restart: true }],
      }),
    ).toEqual([
      'host: needs "own": turns[1] restarts opencode',
      'host: needs "own": it runs 2 servers',
      'host: needs "own": "env" sets the process environment (FORGE_TEST_GOAL_DEBOUNCE_MS)',
      'host: needs "own": "logLevel" DEBUG is the process\'s',
      'host: needs "own": "{{home}}" is the host\'s HOME',
      'host: needs "own": the workspace seeds .opencode/opencode.json, where a shared host\'s scenario keeps its config',
      'host: needs "own": the workspace seeds .opencode/forge.json, whose workers are named by the process\'s first one',
    ])
  })

  it("validates workspaces: numbered turns, steps and replies, checks where they belong, a shared host, one turn per workspace in a group", () => {
    expect(problemsOf({ mode: "serve", turns: [{ prompt: "x", workspace: 2 }], permissions: [{ permission: "p", reply: "once", workspace: 1 }] })).toEqual([
      'turns[0].workspace: "workspace" needs "workspaces"',
      'permissions[0].workspace: "workspace" needs "workspaces"',
    ])
    expect(
      problemsOf({
        mode: "serve",
        servers: 2,
        workspace: { git: true },
        workspaces: [{ expect: { logs: [{ matches: "x" }] } }, { expect: { modelRequests: [{ where: { workspace: 1 }, message: { contains: "x" } }] } }],
        turns: [{ prompt: "a", workspace: 3 }, { prompt: "b", wait: false }, { prompt: "c" }],
        model: [{ text: "t", workspace: 3 }],
        expect: { files: [{ path: "x" }], toolCounts: { t: 1 }, logs: [{ matches: "y" }] },
      }),
    ).toEqual([
      'turns[0].workspace: workspace 3 does not exist: the scenario has 2 (see "workspaces")',
      'model[0].workspace: workspace 3 does not exist: the scenario has 2 (see "workspaces")',
      'workspaces: "workspaces" share one host: they cannot run with "servers"',
      'workspaces: "workspaces" run on a shared host, but it runs 2 servers',
      'workspace: with "workspaces", seed workspace 1 in workspaces[0]',
      'expect.files: with "workspaces", put it in the expect of the workspace it is about',
      'expect.toolCounts: with "workspaces", put it in the expect of the workspace it is about',
      'workspaces[0].expect.logs: the log is the whole run\'s: put "logs" in the top-level "expect"',
      "workspaces[1].expect.modelRequests[0].where.workspace: a workspace's own checks see only its own requests",
      "turns[2].workspace: runs alongside turns[1] in the same workspace 1; turns that run at the same time need different workspaces",
    ])
    expect(problemsOf({ workspaces: [{}, {}], turns: [{ prompt: "x" }] })).toEqual([
      'workspaces: "workspaces" needs "mode": "serve" (one host serving them all)',
    ])
  })

  it(
    "runs scenarios on one shared host at the same time: each its own config, plugin options, session and permission replies; its instance disposed and what it left running killed",
    async () => {
      const probeScenario = (flavour: string, subject: string): ScenarioInput => ({
        name: `shared-${flavour}`,
        mode: "serve",
        pluginPath: PROBE,
        pluginOptions: { flavour },
        workspace: { files: { "README.md": `# ${flavour}\n` } },
        turns: [{ prompt: "gate and follow up" }],
        model: [
          { tool: "probe_gate", args: { subject } },
          { tool: "bash", args: { command: "setsid sleep 300 > /dev/null 2>&1 < /dev/null &", description: "leave a sleeper" } },
          { tool: "probe_followup", args: { text: `follow-up ${flavour}` } },
          { text: `done ${flavour}` },
          { text: `followed ${flavour}` },
        ],
        permissions: [{ permission: "probe_gate", reply: "once" }],
        expect: {
          toolResults: [{ tool: "probe_gate", status: "completed", contains: `gate passed:${subject}` }],
          toolCounts: { probe_gate: 1, probe_followup: 1 },
          userMessages: [{ shown: { contains: `follow-up ${flavour}` } }],
          modelRequests: [{ request: 5, message: { contains: `follow-up ${flavour}` } }],
        },
      })
      const lines: string[][] = [[], []]
      const results = await Promise.all(
        (["sweet", "sour"] as const).map((flavour, i) =>
          runScenario(probeScenario(flavour, flavour === "sweet" ? "deploy" : "release"), { exclusive: false, keep: true, log: (l) => lines[i]?.push(l) }),
        ),
      )
      try {
        for (const result of results) {
          expect(result.passed, explain(result)).toBe(true)
          expect(result.host).toBe("shared")
        }
        const hostOf = (l: string[]) => /^ {2}shared host (\S+)$/m.exec(l.join("\n"))?.[1]
        expect(hostOf(lines[0] ?? [])).toBeDefined()
        expect(hostOf(lines[0] ?? []), "one host served both").toBe(hostOf(lines[1] ?? []))
        // One process booted an instance of the probe for each project, each with the project's own plugin options.
        for (const flavour of ["sweet", "sour"]) expect(results[0]?.diagnostics).toContain(`probe plugin ready options={\\"flavour\\":\\"${flavour}\\"}`)
        // The host runs on, but nothing the scenarios started does.
        await expect(fetch(`${hostOf(lines[0] ?? [])}/config`)).resolves.toBeDefined()
        for (const result of results) expect(processesWorkingIn(result.root as string)).toEqual([])
      } finally {
        for (const result of results) if (result.root) fs.rmSync(result.root, { recursive: true, force: true })
      }
    },
    E2E_TIMEOUT,
  )

  it("validates servers, the server of turns, steps, permission replies and tool results, and wait: false groups", () => {
    expect(
      problemsOf({
        servers: 2,
        turns: [{ prompt: "x", server: 2, wait: false }, { prompt: "y" }],
        model: [
          { text: "a", server: 1 },
          { tools: [{ tool: "t" }], text: "b" },
        ],
        expect: { toolResults: [{ tool: "t", server: 1 }] },
      }),
    ).toEqual([
      'model[1]: a model step needs exactly one of "tool", "text" or "tools"',
      'turns[0].server: "server" applies to serve mode only',
      'turns[0].wait: "wait" applies to serve mode only',
      'servers: "servers" applies to serve mode only',
      'model[0].server: "server" applies to serve mode only',
      'expect.toolResults[0].server: "server" applies to serve mode only',
    ])
    expect(
      problemsOf({
        mode: "serve",
        servers: 2,
        turns: [
          { prompt: "a", server: 3 },
          { prompt: "b", wait: false },
          { prompt: "c" },
          { prompt: "d", wait: false },
          { restart: true, server: 2 },
          { prompt: "e", wait: false, server: 2 },
        ],
        model: [
          { text: "a", server: 3 },
          { server: 2, tools: [{ tool: "t", args: {}, server: 1 }] },
        ],
        permissions: [{ permission: "p", reply: "once", server: 5 }],
        expect: { toolResults: [{ tool: "t", server: 9 }] },
      }),
    ).toEqual([
      'model[1].tools[0].server: unknown key "server"',
      'model[0].server: server 3 does not exist: the scenario starts 2 (see "servers")',
      'permissions[0].server: server 5 does not exist: the scenario starts 2 (see "servers")',
      'expect.toolResults[0].server: server 9 does not exist: the scenario starts 2 (see "servers")',
      'turns[0].server: server 3 does not exist: the scenario starts 2 (see "servers")',
      "turns[2].server: runs alongside turns[1] on the same server 1; turns that run at the same time need different servers",
      'turns[4].restart: a restart turn cannot run alongside the turn before it (that turn has "wait": false)',
      'turns[5].wait: "wait": false needs a turn after it to run alongside',
    ])
    expect(
      problemsOf({
        mode: "serve",
        servers: 5,
        turns: [
          { prompt: "a", server: 0, wait: true },
          { restart: true, wait: false },
        ],
      }),
    ).toEqual([
      "servers: at most 4 servers (each one is a real opencode of ~500 MB)",
      "turns[0].server: servers are numbered from 1",
      'turns[0].wait: "wait" can only be false (leave it out for a turn that is waited for)',
      'turns[1].wait: "wait" does not apply to a restart turn',
    ])
  })

  it("validates TUI mode: keys, screens and the window size only there, serve-only and run-only keys refused there", () => {
    expect(
      problemsOf({
        mode: "serve",
        tui: { width: 100, depth: 3 },
        turns: [
          { keys: ["Enter", "Entr", { text: "" }] },
          { prompt: "x", screen: { contains: "y" } },
          { keys: ["Tab"], agent: "plan" },
          { keys: ["Tab"], prompt: "x" },
        ],
        expect: {
          screen: {},
          userMessages: [{ message: 0, shown: { contain: "x" } }],
          toolResults: [{ tool: "t", title: { contains: "a", extra: 1 }, metadata: { exit: 0 } }],
        },
      }),
    ).toEqual([
      'tui.depth: unknown key "depth"',
      'turns[0].keys[1]: not a tmux key name (e.g. "Enter", "Escape", "Tab", "Up", "BSpace", "C-x", "M-Enter"); type text with { "text": "…" }',
      "turns[0].keys[2].text: Too small: expected string to have >=1 characters",
      'turns[2].agent: "agent" does not apply to a keys turn',
      'turns[3]: a turn needs exactly one of "prompt", "command", "restart" or "keys"',
      'expect.toolResults[0].title.extra: unknown key "extra"',
      "expect.userMessages[0].message: Too small: expected number to be >=1",
      'expect.userMessages[0].shown.contain: unknown key "contain"',
      'expect.screen: a screen check needs at least one of "contains", "notContains" or "matches"',
      'tui: "tui" applies to TUI mode only ("mode": "tui")',
      'turns[0].keys: keys turns need "mode": "tui"',
      'turns[1].screen: "screen" applies to TUI mode only',
      'turns[2].keys: keys turns need "mode": "tui"',
      'turns[3].keys: keys turns need "mode": "tui"',
      'expect.screen: "screen" applies to TUI mode only',
    ])
    expect(
      problemsOf({
        mode: "tui",
        auto: true,
        servers: 2,
        tui: { width: 30 },
        turns: [
          { prompt: "a", wait: false, server: 1, agent: "plan" },
          { restart: true },
          { command: "c", exitCode: 0, auto: true, settleMs: 10, screen: { notContains: "x" } },
        ],
        permissions: [{ permission: "p", reply: "once" }],
        model: [{ text: "x", server: 1 }],
        expect: { exitCode: 0, toolResults: [{ tool: "t", server: 1 }] },
      }),
    ).toEqual([
      "tui.width: Too small: expected number to be >=40",
      'permissions: permission replies need "mode": "serve"; in TUI mode answer the permission dialog with a "keys" turn (wait for the dialog with "screen")',
      'turns[0].server: "server" applies to serve mode only',
      'turns[0].wait: "wait" applies to serve mode only',
      'turns[1].restart: restart turns need "mode": "serve" (TUI mode keeps one opencode for the whole scenario)',
      'servers: "servers" applies to serve mode only',
      'model[0].server: "server" applies to serve mode only',
      'expect.toolResults[0].server: "server" applies to serve mode only',
      'auto: "auto" applies to run mode only; in TUI mode answer permission dialogs with "keys" turns',
      'expect.exitCode: "exitCode" applies to run mode only',
      'turns[2].auto: "auto" applies to run mode only',
      'turns[2].exitCode: "exitCode" applies to run mode only',
      'turns[0].agent: "agent" cannot be passed in TUI mode; switch agents with a "keys" turn (e.g. "Tab")',
    ])
    expect(problemsOf({ turns: [{ prompt: "x" }], expect: { userMessages: [{ shown: { contains: "x" } }] } })).toEqual([
      `expect.userMessages: "userMessages" needs "mode": "serve" or "tui" (run mode does not read the session's messages)`,
    ])
    const tui = parseScenario({ mode: "tui", turns: [{ keys: ["C-x", "M-Enter", "F12", "q", { text: "hi" }] }], expect: { screen: { matches: "hi$" } } })
    expect(tui.tui).toBeUndefined()
    expect(parseScenario({ mode: "tui", tui: { height: 30 }, turns: [{ prompt: "x" }] }).tui).toEqual({ width: 200, height: 30 })
  })

  it("web: pages served as written on 127.0.0.1, their keys strict, {{web}} only with pages to serve", async () => {
    expect(
      problemsOf({
        turns: [{ prompt: "fetch {{web}}/a" }],
        web: { a: { body: "x" }, "/b?q=1": { body: "x" }, "/c": { body: "x", type: "text/plain", status: 99, headers: { "bad header": "x" } } },
      }),
    ).toEqual([
      "web.a: invalid key: must start with / and hold no query, fragment or space",
      'web["/b?q=1"]: invalid key: must start with / and hold no query, fragment or space',
      'web["/c"].status: Too small: expected number to be >=200',
      'web["/c"].headers["bad header"]: invalid key: not a valid header name',
      'web["/c"].type: unknown key "type"',
    ])
    expect(problemsOf({ turns: [{ prompt: "x" }], model: [{ tool: "forge_fetch", args: { url: "{{web}}/a" } }] })).toEqual([
      'web: "{{web}}" is used, but the scenario declares no "web" pages to serve',
    ])
    const scenario = parseScenario({
      turns: [{ prompt: "x" }],
      web: { "/page": { body: "<h1>Hi</h1>" }, "/gone": { body: "moved", status: 301, headers: { Location: "/page" }, contentType: "text/plain" } },
    })
    const web = await startWebPages(scenario.web)
    try {
      expect(web.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      const page = await fetch(`${web.url}/page?x=1`)
      expect([page.status, page.headers.get("content-type"), await page.text()]).toEqual([200, "text/html; charset=utf-8", "<h1>Hi</h1>"])
      const gone = await fetch(`${web.url}/gone`, { redirect: "manual" })
      expect([gone.status, gone.headers.get("location")]).toEqual([301, "/page"])
      expect((await fetch(`${web.url}/nope`)).status).toBe(404)
      expect(web.requests).toEqual(["/page", "/gone", "/nope"])
    } finally {
      await web.close()
    }
  })

  it("modelRequests: picks a request by number or by what it holds (where), and checks its raw body", () => {
    expect(
      problemsOf({
        turns: [{ prompt: "x" }],
        expect: {
          modelRequests: [
            { toolsInclude: ["t"] },
            { request: 1, where: { turn: 1 } },
            { where: {} },
            { where: { server: 1, agent: "x" } },
            { request: 2, bodyExcludes: ["a..b"], body: [] },
          ],
        },
      }),
    ).toEqual([
      'expect.modelRequests[0]: a model request check needs exactly one of "request" (its number) or "where" (what it holds)',
      'expect.modelRequests[1]: a model request check needs exactly one of "request" (its number) or "where" (what it holds)',
      'expect.modelRequests[2].where: "where" needs at least one of "turn", "server", "workspace", "model", "message", "system" or "history"',
      'expect.modelRequests[3].where.agent: unknown key "agent"',
      "expect.modelRequests[4].body: Invalid input: expected record, received array",
      'expect.modelRequests[4].bodyExcludes[0]: a key path: keys joined with "." (e.g. "reasoning_effort")',
    ])
    expect(problemsOf({ turns: [{ prompt: "x" }], expect: { modelRequests: [{ where: { server: 1 } }] } })).toEqual([
      'expect.modelRequests[0].where.server: "server" applies to serve mode only',
    ])
    expect(problemsOf({ mode: "serve", turns: [{ prompt: "x" }], expect: { modelRequests: [{ where: { server: 2 }, body: { a: 1 } }] } })).toEqual([
      'expect.modelRequests[0].where.server: server 2 does not exist: the scenario starts 1 (see "servers")',
    ])

    // Two parallel worker requests (in either order), the orchestrator's, and a title request no check can pick.
    const request = (index: number, model: string, system: string, body: Record<string, unknown>): ModelRequestRecord => ({
      index,
      turn: 1,
      server: 1,
      workspace: 1,
      kind: index === 0 ? "title" : "step",
      reply: { text: "x" },
      callIds: [],
      lastRole: "user",
      userText: `task ${index}`,
      systemText: system,
      historyText: "[]",
      tools: ["read"],
      model,
      body: { model, ...body },
    })
    const requests = [
      request(0, "fake-model", "title", {}),
      request(1, "fake-model", "orchestrator", { stream: true }),
      request(2, "fake-model", "you are forge-scout", { stream: true }),
      request(3, "fake-pinned", "you are forge-deep", { stream: true, reasoning_effort: "high", stream_options: { include_usage: true } }),
    ]
    const scenario = parseScenario({
      turns: [{ prompt: "x" }],
      expect: {
        modelRequests: [
          { where: { model: "fake-pinned" }, system: { contains: "forge-deep" }, body: { reasoning_effort: "high", stream_options: { include_usage: true } } },
          { where: { system: { contains: "forge-scout" } }, bodyExcludes: ["reasoning_effort", "stream_options.include_usage"] },
          { where: { model: "fake-model", system: { notContains: "forge-" } }, message: { contains: "task 1" } },
          { where: { model: "fake-pinned" }, body: { reasoning_effort: "low", stream_options: { include_usage: false }, seed: 1 } },
          { where: { system: { contains: "forge-scout" } }, bodyExcludes: ["model", "stream_options"] },
          { where: { model: "fake-model" } },
          { where: { turn: 2 } },
          { request: 4 },
        ],
      },
    })
    const evidence = {
      project: scratch,
      toolResults: [],
      db: { exists: false, actors: [], transitions: [], watchdogLedger: [] },
      logs: "",
      modelRequests: requests,
    }
    const checks = evaluateExpectations(scenario.expect, evidence)
    expect(checks.map((c) => (c.ok ? `ok ${c.label}` : `FAIL ${c.label}: ${c.detail}`))).toEqual([
      "ok modelRequests[0] request where model fake-pinned (#3)",
      'ok modelRequests[1] request where system {"contains":"forge-scout"} (#2)',
      'ok modelRequests[2] request where model fake-model, system {"notContains":"forge-"} (#1)',
      'FAIL modelRequests[3] request where model fake-pinned (#3): body.reasoning_effort is "high", expected "low"; body.stream_options.include_usage is true, expected false; body.seed is missing, expected 1',
      'FAIL modelRequests[4] request where system {"contains":"forge-scout"} (#2): body.model is present: "fake-model"',
      'FAIL modelRequests[5] request where model fake-model: 2 requests match (#1, #2); narrow "where" down to one',
      "FAIL modelRequests[6] request where turn 2: no request matches; requests: #1 (turn 1, model fake-model), #2 (turn 1, model fake-model), #3 (turn 1, model fake-pinned)",
      "FAIL modelRequests[7] request #4: only 3 scripted request(s) arrived",
    ])
  })

  it("compactionRequests: picks opencode's compaction requests by their number among them, no scripted request", () => {
    expect(problemsOf({ turns: [{ prompt: "x" }], expect: { compactionRequests: [{ request: 0 }, { request: 1, where: { turn: 1 } }] } })).toEqual([
      "expect.compactionRequests[0].request: Too small: expected number to be >=1",
      'expect.compactionRequests[1].where: unknown key "where"',
    ])
    const compaction = (userText: string): ModelRequestRecord => ({
      index: 0,
      turn: 1,
      server: 1,
      workspace: 1,
      kind: "compaction",
      reply: { text: "summary" },
      callIds: [],
      lastRole: "user",
      userText,
      systemText: "You are a context summarization agent.",
      historyText: "[]",
      tools: [],
      model: "fake-model",
      body: {},
    })
    const scenario = parseScenario({
      turns: [{ prompt: "x" }],
      expect: {
        compactionRequests: [
          { request: 2, message: { contains: "the goal's brief" }, system: { contains: "summarization" } },
          { request: 1, message: { contains: "the goal's brief" } },
          { request: 3 },
        ],
        modelRequests: [{ request: 1 }],
      },
    })
    const evidence = {
      project: scratch,
      toolResults: [],
      db: { exists: false, actors: [], transitions: [], watchdogLedger: [] },
      logs: "",
      modelRequests: [compaction("nothing yet"), compaction("with the goal's brief")],
    }
    expect(evaluateExpectations(scenario.expect, evidence).map((c) => (c.ok ? `ok ${c.label}` : `FAIL ${c.label}: ${c.detail}`))).toEqual([
      "FAIL modelRequests[0] request #1: only 0 scripted request(s) arrived",
      "ok compactionRequests[0] compaction #2",
      `FAIL compactionRequests[1] compaction #1: last user message does not contain "the goal's brief"; last user message: nothing yet`,
      "FAIL compactionRequests[2] compaction #3: only 2 compaction request(s) arrived",
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
