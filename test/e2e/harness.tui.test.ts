// Tests of the e2e harness in TUI mode, against the probe plugin in a private tmux server: typed prompts, commands and
// keys, screen waits, and a wait that fails. They run the real opencode binary, two at a time, each with a generous
// timeout.
import fs from "node:fs"
import path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { E2E_TIMEOUT, explain, HARNESS_SCENARIOS, PROBE, processesIn } from "./harness.helpers"
import { closeSharedHosts, runScenario } from "./index"

afterAll(closeSharedHosts)

describe.concurrent("e2e harness", () => {
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
            // Long enough for the TUI to draw the typed prompt on a loaded machine (the wait always runs out): a clean-clone
            // run with the unit tier beside it once saw the TUI still on its home screen after 10 s.
            { prompt: "first words", screen: { contains: "NEVER ON SCREEN" }, timeoutMs: 20_000 },
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
})
