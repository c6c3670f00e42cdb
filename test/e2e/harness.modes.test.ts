// Tests of the e2e harness running scenarios against the probe plugin (test/fixtures/probe-plugin/) in run and serve
// mode: on one server or two, on a host of their own or a shared one, and reporting what failed. They run the real
// opencode binary, two at a time (the machine's lanes decide how many opencode run at once), each with a generous
// timeout.
import fs from "node:fs"
import path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { E2E_TIMEOUT, explain, HARNESS_SCENARIOS, PROBE, processesWorkingIn } from "./harness.helpers"
import { closeSharedHosts, runScenario, type ScenarioInput } from "./index"

afterAll(closeSharedHosts)

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
})
