import { execFile } from "node:child_process"
import { promisify } from "node:util"

// Forge runs the real git on a workspace: no shell, bounded in time, and never redirected to another repository by a
// GIT_DIR (or GIT_WORK_TREE, GIT_INDEX_FILE, …) the user's environment happens to carry. The repository's hooks and
// fsmonitor never run for Forge: nothing a repository's config names runs.

const run = promisify(execFile)
const GIT_TIMEOUT_MS = 60_000
/** How much of git's stderr an error carries. */
const STDERR_LINES = 10
const REDIRECTING_ENV = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_COMMON_DIR",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_NAMESPACE",
  "GIT_PREFIX",
]

export interface GitOutcome {
  code: number
  stdout: string
  stderr: string
}

export interface GitRunOptions {
  /** What needs git, for the error when git is missing ("loop_start", "a goal's audit"). */
  purpose: string
  /** Variables Forge itself sets for this run (a temporary index). */
  env?: Record<string, string>
  /** The most stdout kept (bytes); more is an error. */
  maxBuffer?: number
}

/** Runs git on `workspace`; a non-zero exit is an outcome, git missing or hanging is an error. */
export async function runGit(workspace: string, args: string[], options: GitRunOptions): Promise<GitOutcome> {
  const env = { ...process.env }
  for (const key of REDIRECTING_ENV) delete env[key]
  Object.assign(env, options.env)
  try {
    const safe = ["-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"]
    const { stdout, stderr } = await run("git", ["-C", workspace, ...safe, ...args], {
      env,
      timeout: GIT_TIMEOUT_MS,
      maxBuffer: options.maxBuffer ?? 16 * 1024 * 1024,
      encoding: "utf8",
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failure = error as { code?: unknown; killed?: boolean; signal?: string | null; stdout?: string; stderr?: string }
    if (failure.code === "ENOENT") throw new Error(`${options.purpose} needs git, and no \`git\` command was found on PATH: install git`)
    if (failure.killed) throw new Error(`git ${args.join(" ")} did not finish within ${GIT_TIMEOUT_MS / 1000} s (killed)`)
    if (typeof failure.code === "number") return { code: failure.code, stdout: failure.stdout ?? "", stderr: failure.stderr ?? "" }
    throw error
  }
}

/** The last lines of git's stderr. */
export function tail(stderr: string): string {
  return stderr.trim().split("\n").slice(-STDERR_LINES).join("\n")
}

/** git's stderr as an error's closing words: " (git: …)", or nothing. */
export function detail(stderr: string): string {
  const text = tail(stderr)
  return text === "" ? "" : ` (git: ${text})`
}
