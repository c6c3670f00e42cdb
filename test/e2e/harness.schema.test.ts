// Tests of the e2e harness's scenario schema: every problem named by its key path, and the rules between keys (which
// mode allows what; servers, workspaces, hosts, TUI keys and screens, until). No opencode runs.
import path from "node:path"
import { describe, expect, it } from "vitest"
import { HARNESS_SCENARIOS, problemsOf } from "./harness.helpers"
import { loadScenarioFile, parseScenario, runScenario, ScenarioFileError, scenarioHost } from "./index"

describe.concurrent("e2e harness", () => {
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
    // A capture is a TUI turn's, taken once its screen holds, into docs/captures/<name>.txt.
    expect(
      problemsOf({
        mode: "tui",
        turns: [
          { prompt: "x", capture: { name: "goal-arm", from: "⚙ goal_write [", to: "Allow once" } },
          { prompt: "y", screen: { contains: "y" }, capture: { name: "Goal Arm", from: "", to: "Allow once", extra: 1 } },
        ],
      }),
    ).toEqual([
      "turns[1].capture.name: a capture's name is a slug ([a-z0-9-]): it names docs/captures/<name>.txt",
      "turns[1].capture.from: Too small: expected string to have >=1 characters",
      'turns[1].capture.extra: unknown key "extra"',
      'turns[0].capture: "capture" needs a "screen" check on its turn: it is taken once the screen holds',
    ])
    expect(problemsOf({ mode: "serve", turns: [{ prompt: "x", capture: { name: "a", from: "b", to: "c" } }] })).toEqual([
      'turns[0].capture: "capture" applies to TUI mode only',
    ])
    const tui = parseScenario({ mode: "tui", turns: [{ keys: ["C-x", "M-Enter", "F12", "q", { text: "hi" }] }], expect: { screen: { matches: "hi$" } } })
    expect(tui.tui).toBeUndefined()
    expect(parseScenario({ mode: "tui", tui: { height: 30 }, turns: [{ prompt: "x" }] }).tui).toEqual({ width: 200, height: 30 })
  })
})
