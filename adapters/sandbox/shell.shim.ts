// opencode's bash tool runs `<shell> -c <command>` with the shell its `shell` setting names. Forge points that setting
// at this shim. For every session it runs the shell opencode would have run, unchanged. For a session of a loop's
// pass, whose shell.env hook set FORGE_SANDBOX, it runs that shell inside the bubblewrap command line the variable
// carries. The shim reads the variable from its own environment, which opencode sets before any command runs, so the
// command cannot drop it. And it never falls back: a sandbox that does not start fails the command.
import { createHash } from "node:crypto"
import { readFile } from "node:fs/promises"
import os from "node:os"
import path from "node:path"
import { executableOnPath, isExecutableFile } from "../process/shell.resolver"
import { writeFileAtomic } from "../workspace/atomic.write"
import { SANDBOX_VAR, shellQuote } from "./bwrap.argv"

/** opencode's shells that its bash tool refuses to run (it falls back to bash then). */
const REFUSED_SHELLS = new Set(["fish", "nu"])

/**
 * The shell opencode's bash tool would run without Forge: its `shell` setting, else $SHELL, when that is a shell it
 * accepts and can find; else bash on PATH; else /bin/sh.
 */
export function opencodeShell(configured: string | undefined, env: { SHELL?: string | undefined; PATH?: string | undefined } = process.env): string {
  const wanted = configured ?? env.SHELL
  if (wanted && !REFUSED_SHELLS.has(path.basename(wanted).toLowerCase())) {
    const found = path.isAbsolute(wanted) ? (isExecutableFile(wanted) ? wanted : undefined) : executableOnPath(wanted, env.PATH)
    if (found !== undefined) return found
  }
  return executableOnPath("bash", env.PATH) ?? "/bin/sh"
}

/** The shim's text: the real shell as it is, or inside the sandbox the environment names. */
export function shimScript(realShell: string): string {
  return [
    "#!/bin/sh",
    "# Written by Forge (forgecharts) as opencode's shell, at every start of opencode: edits are lost.",
    `# Runs the real shell; in a session of a loop's pass, inside the bubblewrap sandbox that $${SANDBOX_VAR} spells out.`,
    `real=${shellQuote(realShell)}`,
    `if [ -z "\${${SANDBOX_VAR}-}" ]; then exec "$real" "$@"; fi`,
    `eval "set -- $${SANDBOX_VAR} \\"\\$real\\" \\"\\$@\\""`,
    'exec "$@"',
    "",
  ].join("\n")
}

/**
 * Where the shim goes: the user's cache folder, never the workspace (a workspace that never used Forge stays without
 * Forge's folder), under a name of its own text, so two opencode processes whose real shells differ never share one.
 */
export function shimFolder(env: { XDG_CACHE_HOME?: string | undefined; HOME?: string | undefined } = process.env): string {
  const cache = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(env.HOME || os.homedir(), ".cache")
  return path.join(cache, "forgecharts", "shell")
}

/**
 * Writes the shim under `folder`, named as the real shell (opencode picks its shell syntax by the name), whole or not
 * at all; a shim already there is left alone (its folder is its text's hash). Resolves its path.
 */
export async function installShellShim(folder: string, realShell: string): Promise<string> {
  const text = shimScript(realShell)
  const file = path.join(folder, createHash("sha256").update(text).digest("hex").slice(0, 16), path.basename(realShell))
  const current = await readFile(file, "utf8").catch(() => undefined)
  if (current !== text) await writeFileAtomic(file, text, undefined, 0o755)
  return file
}

/** The environment that puts one shell of the shim inside the sandbox `argv` (bwrap.argv.ts) spells out. */
export function sandboxEnv(argv: readonly string[]): Record<string, string> {
  return { [SANDBOX_VAR]: argv.map(shellQuote).join(" ") }
}
