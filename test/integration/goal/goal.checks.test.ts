import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import path from "node:path"
import { beforeEach, describe, expect, it } from "vitest"
import { isAlive } from "../../../adapters/process/index"
import { createGoalCheckRunner } from "../../../adapters/workspace/goal.checks"
import type { GoalCheck } from "../../../services/goal/goal.contract"
import { tempDir } from "../../temp.dir"

// The host's own run of a goal's checks, with real processes and files: a command passes only on exit code 0 within
// its time, ends on its exit whatever its children hold open, and leaves no process behind; a file check reads
// workspace files only.

describe("goal check runner", () => {
  let workspace: string
  let logDir: string
  let outside: string
  const run = (check: GoalCheck) => createGoalCheckRunner({ workspace, logDir }).run(check)
  const command = (text: string, timeoutS = 20): GoalCheck => ({ kind: "command", command: text, timeoutS })
  const contains = (file: string, text: string): GoalCheck => ({ kind: "contains", file, text })
  const pidsIn = (file: string) => readFileSync(path.join(workspace, file), "utf8").trim().split(/\s+/).map(Number)

  beforeEach(() => {
    workspace = tempDir("forge-goal-ws-")
    logDir = tempDir("forge-goal-logs-")
    outside = tempDir("forge-goal-outside-")
  })

  it("passes on exit code 0 and fails on any other, with the output's tail; its log is gone afterwards", async () => {
    expect(await run(command("echo all good"))).toEqual({ pass: true, summary: "exit code 0", outputTail: "all good\n" })
    expect(await run(command("echo broken >&2; exit 3"))).toEqual({ pass: false, summary: "exit code 3", outputTail: "broken\n" })
    expect(readdirSync(logDir)).toEqual([])
  })

  it("ends on the command's exit although a child it left holds the output open, and kills that child", async () => {
    const started = Date.now()
    const outcome = await run(command("sleep 30 & echo $! > left.pid; echo done"))
    expect(outcome).toEqual({ pass: true, summary: "exit code 0", outputTail: "done\n" })
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(pidsIn("left.pid").filter(isAlive)).toEqual([])
  })

  it("fails a command that runs past its timeout and kills its whole tree", async () => {
    const outcome = await run(command("sleep 30 & echo $! > tree.pid; echo $$ >> tree.pid; echo waiting; wait", 1))
    expect(outcome).toEqual({ pass: false, summary: "timed out after 1 s (process tree killed)", outputTail: "waiting\n" })
    expect(pidsIn("tree.pid").filter(isAlive)).toEqual([])
    expect(readdirSync(logDir)).toEqual([])
  })

  it("fails a command that cannot start, saying why", async () => {
    const runner = createGoalCheckRunner({ workspace: path.join(workspace, "gone"), logDir })
    const outcome = await runner.run(command("true"))
    expect(outcome.pass).toBe(false)
    expect(outcome.summary).toMatch(/^could not start: .*the working directory does not exist/)
    // A file check in a workspace that is gone fails too, instead of throwing at its caller.
    expect(await runner.run(contains("a.ts", "x"))).toMatchObject({ pass: false, summary: expect.stringMatching(/^could not run: ENOENT/) })
  })

  it("reads workspace files only: missing, absent text, an absolute path, .. and a link that leads out all fail", async () => {
    mkdirSync(path.join(workspace, "src"))
    writeFileSync(path.join(workspace, "src/a.ts"), "export const TIMEOUT = 40\n")
    writeFileSync(path.join(outside, "secret.ts"), "TIMEOUT = 40\n")
    symlinkSync(path.join(outside, "secret.ts"), path.join(workspace, "src/link.ts"))
    expect(await run(contains("src/a.ts", "TIMEOUT = 40"))).toEqual({ pass: true, summary: "src/a.ts contains the text", outputTail: "" })
    expect(await run(contains("src/a.ts", "TIMEOUT = 30"))).toMatchObject({ pass: false, summary: 'src/a.ts does not contain "TIMEOUT = 30"' })
    expect(await run(contains("src/b.ts", "x"))).toMatchObject({ pass: false, summary: "src/b.ts is missing" })
    expect(await run(contains("src", "x"))).toMatchObject({ pass: false, summary: "src is not a file" })
    const upAndOut = path.relative(workspace, path.join(outside, "secret.ts"))
    expect(await run(contains(upAndOut, "TIMEOUT"))).toMatchObject({ pass: false, summary: `${upAndOut} leads out of the workspace` })
    const absolute = path.join(outside, "secret.ts")
    expect(await run(contains(absolute, "TIMEOUT"))).toMatchObject({
      pass: false,
      summary: `${absolute} is an absolute path: a check reads workspace-relative files only`,
    })
    expect((await run(contains("src/link.ts", "TIMEOUT"))).summary).toMatch(/^src\/link\.ts resolves to .*secret\.ts, outside the workspace$/)
  })
})
