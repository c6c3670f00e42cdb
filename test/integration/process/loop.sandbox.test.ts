// The loop sandbox with real bubblewrap and a hostile command set: a coder's shell writes its worktree and nothing
// else, an auditor's writes nothing at all, whatever the commands do (cd .., absolute paths, a symlink out, env -i, a
// background writer that outlives the shell, the worktree's .git), through both ways a pass runs a shell: Forge's
// shim as opencode's shell, and forge_shell's job spawn.
import { execFileSync, spawn } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import path from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import type { ShellConfinement } from "../../../machines/loop/loop.sandbox"
import { bwrapArgv } from "../../../adapters/sandbox/bwrap.argv"
import { findBwrap, probeBwrap } from "../../../adapters/sandbox/bwrap.probe"
import { installShellShim, sandboxEnv } from "../../../adapters/sandbox/shell.shim"
import { sandboxedShell } from "../../../adapters/process/sandboxed.shell"
import { resolveShell } from "../../../adapters/process/shell.resolver"
import { spawnJob } from "../../../adapters/process/job.spawn"
import { tempDir } from "../../temp.dir"

const BWRAP = findBwrap()

beforeAll(() => {
  // Without bubblewrap the loop sandbox cannot be tested here: fail, and say how to get it (.ci/run installs it).
  expect(BWRAP, "bubblewrap is not installed: apt install bubblewrap (Debian/Ubuntu), dnf install bubblewrap (Fedora)").toBeDefined()
})

interface World {
  workspace: string
  worktree: string
  /** A folder beside the workspace: outside everything a pass may write. */
  outside: string
  shim: string
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" },
  })
}

/** A git workspace with a loop's worktree at its place, a file in each, and Forge's shim installed. */
async function world(): Promise<World> {
  const root = tempDir("forge-sandbox-")
  const workspace = path.join(root, "workspace")
  const outside = path.join(root, "outside")
  mkdirSync(workspace)
  mkdirSync(outside)
  git(workspace, "init", "-q", "-b", "main")
  writeFileSync(path.join(workspace, "main.txt"), "main checkout\n")
  git(workspace, "add", ".")
  git(workspace, "commit", "-q", "-m", "base")
  const worktree = path.join(workspace, ".opencode", "forge", "worktrees", "demo")
  git(workspace, "worktree", "add", "-q", "-b", "forge/demo", worktree)
  writeFileSync(path.join(worktree, "code.txt"), "alpha\n")
  const shim = await installShellShim(path.join(root, "shim"), resolveShell().path)
  return { workspace, worktree, outside, shim }
}

const confinement = (w: World, writable: boolean, network = false): ShellConfinement => ({ worktree: w.worktree, writable, network })
const argvOf = (w: World, c: ShellConfinement) => bwrapArgv(c, { bwrap: BWRAP ?? "bwrap", workspace: w.workspace })

/** Runs `command` as opencode's bash tool would through Forge's shim: `<shim> -c <command>` in `cwd`. */
function viaShim(w: World, c: ShellConfinement | null, command: string): Promise<{ code: number | null; out: string }> {
  const env = { ...process.env, ...(c === null ? {} : sandboxEnv(argvOf(w, c))) }
  return runShim(w.shim, command, w.worktree, env)
}

/** Waits without blocking this process (a server in it answers the sandbox's dial). */
function runShim(shim: string, command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return runCommand(shim, ["-c", command], env, cwd)
}

/** Every way a hostile command tries to write outside the worktree; each names the file it would leave. */
function escapes(w: World): { command: string; leaves: string }[] {
  const at = (name: string) => path.join(w.outside, name)
  return [
    { command: `cd .. && cd .. && cd .. && cd .. && touch escaped-cd`, leaves: path.join(w.workspace, "escaped-cd") },
    { command: `echo x > ${w.workspace}/main.txt`, leaves: "" },
    { command: `touch ${at("absolute")}`, leaves: at("absolute") },
    { command: `ln -s ${w.workspace} link && touch link/through-link`, leaves: path.join(w.workspace, "through-link") },
    { command: `env -i /bin/sh -c 'touch ${at("env-i")}'`, leaves: at("env-i") },
    { command: `touch ${w.workspace}/.git/escaped-git`, leaves: path.join(w.workspace, ".git", "escaped-git") },
    {
      command: `touch "$HOME/forge-sandbox-escape-${path.basename(w.outside)}"`,
      leaves: path.join(process.env.HOME ?? "/root", `forge-sandbox-escape-${path.basename(w.outside)}`),
    },
  ]
}

describe("the loop sandbox (real bubblewrap)", () => {
  it("starts here, and says why when it cannot", async () => {
    expect(await probeBwrap(BWRAP)).toBeNull()
    expect(await probeBwrap(undefined)).toBe("bwrap is not installed (no bwrap on PATH)")
    expect(await probeBwrap("/nonexistent/bwrap")).toMatch(/^\/nonexistent\/bwrap could not be run: .*ENOENT/)
  })

  it("lets a coder write its worktree and nothing outside it, whatever the commands do", async () => {
    const w = await world()
    const coder = confinement(w, true)
    expect(await viaShim(w, coder, "echo beta >> code.txt && mkdir -p src && echo made > src/new.txt")).toEqual({ code: 0, out: "" })
    expect(readFileSync(path.join(w.worktree, "code.txt"), "utf8")).toBe("alpha\nbeta\n")
    expect(readFileSync(path.join(w.worktree, "src", "new.txt"), "utf8")).toBe("made\n")
    for (const { command, leaves } of escapes(w)) {
      const run = await viaShim(w, coder, command)
      expect(run.code, `${command} must fail: ${run.out}`).not.toBe(0)
      if (leaves !== "") expect(existsSync(leaves), `${command} left ${leaves}`).toBe(false)
    }
    expect(readFileSync(path.join(w.workspace, "main.txt"), "utf8")).toBe("main checkout\n")
    // The host commits, never a pass: the worktree's .git (its link to the repository) and the repository are read-only.
    expect((await viaShim(w, coder, "echo 'gitdir: /tmp' > .git")).code).not.toBe(0)
    expect((await viaShim(w, coder, "git add -A && git -c user.name=t -c user.email=t@t commit -qm sneaky")).code).not.toBe(0)
    expect(git(w.workspace, "log", "--oneline", "forge/demo").trim().split("\n")).toHaveLength(1)
  })

  it("lets an auditor change no file at all, its worktree included", async () => {
    const w = await world()
    const auditor = confinement(w, false)
    expect(await viaShim(w, auditor, "cat code.txt && grep -c alpha code.txt")).toEqual({ code: 0, out: "alpha\n1\n" })
    for (const command of ["sed -i 's/alpha/omega/' code.txt", "touch new.txt", "rm code.txt", "echo x >> code.txt"]) {
      expect((await viaShim(w, auditor, command)).code, command).not.toBe(0)
    }
    expect(readFileSync(path.join(w.worktree, "code.txt"), "utf8")).toBe("alpha\n")
    expect(existsSync(path.join(w.worktree, "new.txt"))).toBe(false)
  })

  it("ends a background writer with the shell that started it, detached or not", async () => {
    const w = await world()
    const late = (name: string) => `sleep 0.4; touch ${w.worktree}/${name}; touch ${w.outside}/${name}`
    const run = await viaShim(w, confinement(w, true), `(${late("late-bg")}) & setsid nohup sh -c '${late("late-setsid")}' >/dev/null 2>&1 & echo started`)
    expect(run).toEqual({ code: 0, out: "started\n" })
    await new Promise((resolve) => setTimeout(resolve, 900))
    for (const name of ["late-bg", "late-setsid"]) {
      expect(existsSync(path.join(w.worktree, name)), `${name} outlived its shell`).toBe(false)
      expect(existsSync(path.join(w.outside, name))).toBe(false)
    }
  })

  it("keeps /tmp private and the network off unless the loop allows it", async () => {
    const w = await world()
    const scratch = path.join(path.dirname(w.outside), "scratch-from-sandbox")
    expect((await viaShim(w, confinement(w, true), `echo x > /tmp/forge-scratch && cat /tmp/forge-scratch && mkdir -p ${scratch}`)).code).toBe(0)
    expect(existsSync(scratch), "a write to /tmp stays in the sandbox").toBe(false)
    const server = createServer((socket) => socket.end("hello\n"))
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const port = (server.address() as { port: number }).port
    try {
      const dial = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -n1 <&3`
      const bash = resolveShell().family === "bash"
      expect(bash, "the network check dials with bash's /dev/tcp").toBe(true)
      expect((await viaShim(w, confinement(w, true, false), dial)).code).not.toBe(0)
      expect(await viaShim(w, confinement(w, true, true), dial)).toEqual({ code: 0, out: "hello\n" })
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it("runs every other session's shell as it is, and never falls back when the sandbox cannot start", async () => {
    const w = await world()
    expect((await viaShim(w, null, `touch ${w.outside}/free`)).code).toBe(0)
    expect(existsSync(path.join(w.outside, "free"))).toBe(true)
    const broken = { ...process.env, ...sandboxEnv(bwrapArgv(confinement(w, true), { bwrap: "/nonexistent/bwrap", workspace: w.workspace })) }
    const run = await runShim(w.shim, `touch ${w.worktree}/ran`, w.worktree, broken)
    expect(run.code).not.toBe(0)
    expect(existsSync(path.join(w.worktree, "ran")), "the command never ran unconfined").toBe(false)
  })

  it("confines forge_shell's jobs the same way", async () => {
    const w = await world()
    const shell = sandboxedShell(resolveShell(), argvOf(w, confinement(w, true)))
    const logFile = path.join(w.outside, "job.log")
    const command = `echo ok > inside.txt; touch ${w.outside}/job-escape; (sleep 0.4; touch ${w.worktree}/job-late) & echo done`
    const job = await spawnJob({ command, cwd: w.worktree, logFile, marker: "job_sandbox_test", fenced: true, shell })
    job.ref()
    const exit = await job.exited
    await new Promise((resolve) => setTimeout(resolve, 800))
    expect(exit.code).toBe(0)
    expect(readFileSync(path.join(w.worktree, "inside.txt"), "utf8")).toBe("ok\n")
    expect(existsSync(path.join(w.outside, "job-escape"))).toBe(false)
    expect(existsSync(path.join(w.worktree, "job-late"))).toBe(false)
    expect(readFileSync(logFile, "utf8")).toContain("done")
  })

  it("forgecharts status says whether the sandbox starts here, and why not", async () => {
    const root = path.resolve(import.meta.dirname, "../../..")
    const status = (PATH: string) =>
      runCommand(process.execPath, [path.join(root, "node_modules/tsx/dist/cli.mjs"), path.join(root, "src/cli.ts"), "status", tempDir("forge-status-")], {
        ...process.env,
        PATH,
      })
    const here = await status(process.env.PATH ?? "")
    expect(here.out.split("\n")[0]).toBe(`loop sandbox: bubblewrap starts here (${BWRAP})`)
    const without = await status("")
    expect(without.out.split("\n")[0]).toMatch(
      /^loop sandbox: cannot start here: bwrap is not installed \(no bwrap on PATH\)\. loop_start and goal audits \(\/goal … --audit\) refuse until/,
    )
  }, 60_000)
})

/** A command's exit code and its output, waited for without blocking this process. */
function runCommand(file: string, args: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], timeout: 50_000 })
    let out = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (out += chunk))
    child.once("error", reject)
    child.once("close", (code) => resolve({ code, out }))
  })
}
