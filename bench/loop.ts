// Times the loop, side by side in one run with baselines: (1) what the sandbox adds to one shell command of a pass
// (bubblewrap) against the same command run unconfined, and what Forge's shell adds to every other session's command;
// (2) a handoff to the next pass's brief: the pass's idle applied, the next pass's session opened and briefed, on the
// real loop service over a real SQLite workspace, against one plain durable step of the same loop.
// Run: npm run bench:loop. Figures are printed, never asserted against timers; the run fails only on wrong answers.
import { execFileSync, spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { bwrapArgv } from "../adapters/sandbox/bwrap.argv"
import { findBwrap, probeBwrap } from "../adapters/sandbox/bwrap.probe"
import { installShellShim, sandboxEnv } from "../adapters/sandbox/shell.shim"
import { resolveShell } from "../adapters/process/shell.resolver"
import { formatTable } from "./bench.stats"
import { measureHandoffs } from "./loop.handoff"

const SHELL_ROUNDS = 60
const COMMANDS = ["true", "echo made > made.txt && cat made.txt", "git status --short"]

interface Variant {
  label: string
  run(command: string): Promise<number>
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}
const p90 = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil(0.9 * sorted.length) - 1)] ?? Number.NaN
}

/** Milliseconds from spawn to exit of `file args` in `cwd`; a non-zero exit is a wrong answer. */
function timed(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint()
    const child = spawn(file, args, { cwd, env, stdio: ["ignore", "ignore", "pipe"] })
    let stderr = ""
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.once("error", reject)
    child.once("close", (code) => {
      if (code !== 0) reject(new Error(`${file} ${args.join(" ")} exited ${code}: ${stderr}`))
      else resolve(Number(process.hrtime.bigint() - start) / 1e6)
    })
  })
}

function git(cwd: string, ...args: string[]): void {
  execFileSync("git", args, {
    cwd,
    stdio: "ignore",
    env: { ...process.env, GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@b", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@b" },
  })
}

async function measureSandbox(root: string): Promise<string> {
  const bwrap = findBwrap()
  const problem = await probeBwrap(bwrap)
  if (bwrap === undefined || problem !== null) throw new Error(`the sandbox cannot start here: ${problem}`)
  const workspace = path.join(root, "workspace")
  mkdirSync(workspace)
  git(workspace, "init", "-q", "-b", "main")
  writeFileSync(path.join(workspace, "README.md"), "# bench\n")
  git(workspace, "add", ".")
  git(workspace, "commit", "-q", "-m", "base")
  const worktree = path.join(workspace, ".opencode", "forge", "worktrees", "bench")
  git(workspace, "worktree", "add", "-q", "-b", "forge/loop/bench", worktree)
  const shell = resolveShell().path
  const shim = await installShellShim(path.join(root, "shim"), shell)
  const confined = { ...process.env, ...sandboxEnv(bwrapArgv({ worktree, writable: true, network: false }, { bwrap, workspace })) }
  const variants: Variant[] = [
    { label: "baseline: the shell itself", run: (command) => timed(shell, ["-c", command], worktree, process.env) },
    { label: "Forge's shell, any other session", run: (command) => timed(shim, ["-c", command], worktree, process.env) },
    { label: "Forge's shell, a pass (bubblewrap)", run: (command) => timed(shim, ["-c", command], worktree, confined) },
  ]
  const rows: string[][] = [["command / variant", "median ms", "p90 ms", "× baseline"]]
  for (const command of COMMANDS) {
    const samples = variants.map(() => [] as number[])
    // Interleaved, so a slow moment of the machine falls on every variant alike.
    for (let round = 0; round < SHELL_ROUNDS; round++) for (const [i, variant] of variants.entries()) samples[i]?.push(await variant.run(command))
    const base = median(samples[0] ?? [])
    rows.push([command, "", "", ""])
    for (const [i, variant] of variants.entries()) {
      const m = median(samples[i] ?? [])
      rows.push([`  ${variant.label}`, m.toFixed(2), p90(samples[i] ?? []).toFixed(2), (m / base).toFixed(2)])
    }
  }
  return formatTable(rows)
}

async function main(): Promise<void> {
  const root = mkdtempSync(path.join(os.tmpdir(), "forge-bench-loop-"))
  try {
    console.log(`loop bench on ${os.cpus().length} cores, node ${process.version}\n`)
    console.log(`1. one shell command of a loop's pass: ${SHELL_ROUNDS} runs of each, interleaved\n`)
    console.log(await measureSandbox(root))
    console.log("\n2. a handoff applied to the next pass's brief sent (the real loop service, SQLite in a temp workspace)\n")
    console.log(await measureHandoffs(path.join(root, "handoffs")))
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error))
  process.exit(1)
})
