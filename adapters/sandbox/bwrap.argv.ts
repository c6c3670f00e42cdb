// The bubblewrap command line that confines one shell of a loop's pass. The whole filesystem is mounted read-only,
// the workspace included (shown again over the private /tmp when it lives there); the worktree is writable at its
// own path for the current coder only, its `.git` never (the host commits). Every namespace is new: the shell sees
// no other process and no network unless the loop allows it, and when the shell exits, or the process that started
// it dies, everything it started dies with the sandbox's pid namespace.
import type { ShellConfinement } from "../../machines/loop/loop.sandbox"

/** The environment variable that carries a confined shell's bubblewrap command line (shell.shim.ts). */
export const SANDBOX_VAR = "FORGE_SANDBOX"

export interface SandboxLayout {
  /** Absolute path of the bwrap executable. */
  bwrap: string
  /** The main checkout (absolute): read-only, and visible inside even under /tmp. */
  workspace: string
}

/** bwrap and its options, up to and including `--`: the confined program and its arguments follow. */
export function bwrapArgv(confinement: ShellConfinement, layout: SandboxLayout): string[] {
  const { worktree, writable, network } = confinement
  return [
    layout.bwrap,
    "--die-with-parent",
    "--new-session",
    "--unshare-all",
    ...(network ? ["--share-net"] : []),
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    // A private /tmp: tools that need scratch space have it, and nothing written there outlives the shell.
    "--tmpfs",
    "/tmp",
    "--ro-bind",
    layout.workspace,
    layout.workspace,
    ...(writable ? ["--bind", worktree, worktree, "--ro-bind-try", `${worktree}/.git`, `${worktree}/.git`] : ["--ro-bind", worktree, worktree]),
    "--unsetenv",
    SANDBOX_VAR,
    "--",
  ]
}

/** One word quoted for a POSIX shell. */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`
}
