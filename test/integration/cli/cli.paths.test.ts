import { spawnSync } from "node:child_process"
import path from "node:path"
import { describe, expect, it } from "vitest"
import type { ModelPaths } from "../../../testing/model.paths"

// `forgecharts paths <machine>` as scripts and other harnesses use it: the JSON parses and holds every path with the
// coverage of them all, the text form is a line per path, and usage errors exit 2 saying what to give.

const ROOT = path.resolve(import.meta.dirname, "../../..")
const cli = (...args: string[]) =>
  spawnSync(path.join(ROOT, "node_modules/.bin/tsx"), [path.join(ROOT, "src/cli.ts"), ...args], {
    encoding: "utf8",
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
  })

const MACHINES = "plan, job, watchdog, goal, crew, loop, loopPass"

describe("forgecharts paths", () => {
  it("--json: every path with its input, steps and end, and the coverage of them all; nothing on stderr when piped", () => {
    const result = cli("paths", "loopPass", "--json")
    expect(result.status, result.stderr).toBe(0)
    expect(result.stderr).toBe("")
    const printed = JSON.parse(result.stdout) as ModelPaths
    expect(printed.machine).toBe("loopPass")
    expect(printed.coverage).toEqual([{ machine: "loopPass", taken: 24, total: 24, missing: [] }])
    expect(printed.paths.length).toBeGreaterThan(10)
    expect(printed.paths[0]).toEqual({
      name: expect.any(String),
      config: "the loop's first coding pass",
      input: { phase: "coding", iteration: 1, maxIterations: 6 },
      initial: { state: "opening" },
      steps: expect.any(Array),
      final: { state: expect.anything(), status: expect.stringMatching(/^(active|done)$/) },
    })
    for (const { initial, steps, final } of printed.paths) {
      for (const step of steps)
        expect(step).toEqual({ event: expect.objectContaining({ type: expect.any(String) }), accepted: expect.any(Boolean), state: expect.anything() })
      expect(final.state).toEqual((steps.at(-1) ?? initial).state)
    }
    const configs = new Set(printed.paths.map((p) => p.config))
    expect([...configs]).toEqual(["the loop's first coding pass", "a section audit's pass", "a pass the loop's budget has no room for"])
  })

  it("the loop's steps say where its pass is", () => {
    const printed = JSON.parse(cli("paths", "loop", "--json").stdout) as ModelPaths
    expect(printed.coverage.map((c) => [c.machine, c.taken === c.total])).toEqual([
      ["loop", true],
      ["loopPass", true],
    ])
    const first = printed.paths.find((p) => p.config === "started from the approved plan")
    expect(first?.initial).toEqual({ state: { running: "coding" }, children: { pass: "opening" } })
  }, 180_000)

  it("the text form: a line per path, its steps as event → state, then the coverage", () => {
    const result = cli("paths", "crew")
    expect(result.status, result.stderr).toBe(0)
    const lines = result.stdout.trimEnd().split("\n")
    const count = (JSON.parse(cli("paths", "crew", "--json").stdout) as ModelPaths).paths.length
    expect(lines).toHaveLength(count + 1)
    expect(lines[0]).toMatch(/^#1 \[born pending\] .+: pending\.standby, \S+ → /)
    for (const [i, line] of lines.slice(0, -1).entries()) expect(line.startsWith(`#${i + 1} [`), line).toBe(true)
    expect(lines.at(-1)).toBe("transition coverage of crew: 49/49 (100.0 %)")
  })

  it("on a terminal, stderr counts the paths found on one line it overwrites, and clears it at the end", () => {
    // util-linux's `script` gives the command a terminal; what the terminal shows is its output (stdout goes elsewhere).
    const command = `${path.join(ROOT, "node_modules/.bin/tsx")} ${path.join(ROOT, "src/cli.ts")} paths crew --json > /dev/null`
    const result = spawnSync("/usr/bin/script", ["-qec", command, "/dev/null"], { encoding: "utf8", timeout: 120_000 })
    expect(result.status, result.stderr).toBe(0)
    const [before, ...shown] = result.stdout.split("\r")
    expect(before).toBe("")
    expect(shown[0]).toBe("paths crew: 1 found…")
    expect(shown.at(-1), "the line cleared at the end").toBe("\x1b[K")
    for (const line of shown.slice(0, -1)) expect(line).toMatch(/^paths crew: \d+ found…$/)
  })

  it("--help, and the usage errors: no machine, an unknown one, two, an option of another command", () => {
    const help = cli("paths", "--help")
    expect(help.status).toBe(0)
    expect(help.stdout).toMatch(/^usage: forgecharts paths <machine> \[--json\]/)
    expect(help.stdout).toContain("--json prints { machine, paths: [{ name, config, input, initial")
    expect(cli("--help").stdout).toContain("paths <machine> [--json]")
    const bad = [
      [["paths"], new RegExp(`^forgecharts paths: name a machine: one of ${MACHINES}\n`)],
      [["paths", "planner"], new RegExp(`^forgecharts paths: no machine "planner": the machines are ${MACHINES}\n`)],
      [["paths", "plan", "crew"], /^forgecharts paths: one machine at most \(got "plan" and "crew"\)/],
      [["paths", "plan", "--format", "json"], /^forgecharts paths: --format belongs to viz/],
    ] as const
    for (const [args, message] of bad) {
      const result = cli(...args)
      expect(result.status, args.join(" ")).toBe(2)
      expect(result.stderr).toMatch(message)
      expect(result.stderr).toContain("usage: forgecharts paths <machine> [--json]")
      expect(result.stdout).toBe("")
    }
  })
})
