// The goal check runner (adapters/workspace/goal.checks.ts, as src/goal/goal.lazy.ts composes it) against the plainest way to
// do the same thing: a command check against spawning its shell directly and awaiting `exit`, and a `--contains`
// check against reading the file and calling `includes`. Runs are interleaved, the order rotating every round.
import { spawn } from "node:child_process"
import { readFile, readdir, writeFile } from "node:fs/promises"
import path from "node:path"
import { resolveShell } from "../adapters/process/index"
import { createGoalCheckRunner } from "../adapters/workspace/goal.checks"
import type { GoalCheck } from "../services/goal/goal.contract"

export interface Contender {
  label: string
  /** What a ratio row calls it. */
  short: string
  /** One run; resolves when it answered, after checking the answer (a wrong one is pushed to `problems`). */
  run(): Promise<void>
}

/** Nanoseconds per run, by contender, in the order given. */
type Samples = Float64Array[]

/** Runs every contender `rounds` times, round by round, the order rotating; `warmUp` untimed rounds first. */
export async function interleave(contenders: readonly Contender[], rounds: number, warmUp: number): Promise<Samples> {
  for (let i = 0; i < warmUp; i++) for (const c of contenders) await c.run()
  const samples = contenders.map(() => new Float64Array(rounds))
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < contenders.length; k++) {
      const index = (round + k) % contenders.length
      const contender = contenders[index] as Contender
      const start = process.hrtime.bigint()
      await contender.run()
      ;(samples[index] as Float64Array)[round] = Number(process.hrtime.bigint() - start)
    }
  }
  return samples
}

/** `file args…` spawned directly with stdio ignored, awaiting its `exit` event; exit code 0 expected. */
function rawSpawn(file: string, args: readonly string[], cwd: string, problems: string[]): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { cwd, stdio: "ignore" })
    child.once("error", (error) => {
      problems.push(`${file} ${args.join(" ")}: ${error.message}`)
      resolve()
    })
    child.once("exit", (code, signal) => {
      if (code !== 0) problems.push(`${file} ${args.join(" ")} exited with ${code ?? signal}`)
      resolve()
    })
  })
}

/** The command check `true` through the runner, against its shell and /bin/sh spawned directly. */
export function commandContenders(workspace: string, logDir: string, problems: string[]): { contenders: Contender[]; shell: string } {
  const runner = createGoalCheckRunner({ workspace, logDir })
  const check: GoalCheck = { kind: "command", command: "true", timeoutS: 120 }
  const shell = resolveShell()
  const contenders: Contender[] = [
    {
      label: 'check runner: command "true" (timeoutS 120)',
      short: "runner",
      async run() {
        const outcome = await runner.run(check)
        if (!outcome.pass || outcome.summary !== "exit code 0") problems.push(`the command check answered ${JSON.stringify(outcome)}`)
      },
    },
    { label: "baseline: spawn /bin/sh -c true, await exit", short: "/bin/sh", run: () => rawSpawn("/bin/sh", ["-c", "true"], workspace, problems) },
  ]
  // The runner runs the host-aligned shell (bash where there is one): the same interpreter spawned directly too.
  if (shell.path !== "/bin/sh") {
    contenders.push({
      label: `baseline: spawn ${shell.path} -c true, await exit`,
      short: shell.path,
      run: () => rawSpawn(shell.path, shell.argv("true"), workspace, problems),
    })
  }
  return { contenders, shell: shell.path }
}

/** A `--contains` check on a small file through the runner, against readFile + includes. */
export async function containsContenders(workspace: string, problems: string[]): Promise<{ contenders: Contender[]; bytes: number }> {
  const file = "CHANGELOG.md"
  const text = "## Unreleased"
  const body = `# Changelog\n\n${text}\n\n${Array.from({ length: 60 }, (_, i) => `- fix ${i + 1}: the parser keeps its place after a comment`).join("\n")}\n`
  await writeFile(path.join(workspace, file), body)
  const runner = createGoalCheckRunner({ workspace, logDir: path.join(workspace, "unused-logs") })
  const check: GoalCheck = { kind: "contains", file, text }
  return {
    bytes: Buffer.byteLength(body),
    contenders: [
      {
        label: `check runner: --contains "${file}::${text}"`,
        short: "runner",
        async run() {
          const outcome = await runner.run(check)
          if (!outcome.pass) problems.push(`the contains check answered ${JSON.stringify(outcome)}`)
        },
      },
      {
        label: "baseline: fs.readFile + includes",
        short: "readFile + includes",
        async run() {
          if (!(await readFile(path.join(workspace, file), "utf8")).includes(text)) problems.push("the baseline did not find the text")
        },
      },
    ],
  }
}

/** What the runner left in its log folder (each check's folder should be gone). */
export async function leftovers(logDir: string): Promise<string[]> {
  return readdir(logDir).catch(() => [])
}

/** How many processes the machine runs now: the runner's kill scans walk all of /proc. */
export async function processCount(): Promise<number> {
  return (await readdir("/proc").catch(() => [] as string[])).filter((name) => /^\d+$/.test(name)).length
}
