// The host-aligned interpreter: the user's login shell with bash preferred and /bin/sh as the last resort, so a
// command behaves as it does in the host's own shell tool. No -l and no profile loading: runs stay predictable.
import { accessSync, constants, statSync } from "node:fs"
import path from "node:path"

export type ShellFamily = "bash" | "zsh" | "ksh" | "sh"

export interface ResolvedShell {
  /** Absolute path of the interpreter. */
  path: string
  family: ShellFamily
  /** Arguments that run `command` with this interpreter (the interpreter path not included). */
  argv(command: string): string[]
}

/** The environment variables the resolver reads. */
export interface ShellEnvironment {
  SHELL?: string | undefined
  PATH?: string | undefined
}

/** Where bash and sh are looked for when neither $SHELL nor PATH provides bash. */
export interface ShellLocations {
  bash: readonly string[]
  sh: string
}

export const DEFAULT_SHELL_LOCATIONS: ShellLocations = { bash: ["/bin/bash", "/usr/bin/bash"], sh: "/bin/sh" }

// Shells that run POSIX `-c` command strings; anything else in $SHELL (fish, csh, nu, ...) is passed over.
const POSIX_FAMILIES: Record<string, ShellFamily> = {
  bash: "bash",
  zsh: "zsh",
  ksh: "ksh",
  ksh93: "ksh",
  mksh: "ksh",
  pdksh: "ksh",
  sh: "sh",
  dash: "sh",
  ash: "sh",
  yash: "sh",
  posh: "sh",
}

/** Whether `file` is a regular file this process may execute. */
export function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false
    accessSync(file, constants.X_OK)
    return true
  } catch {
    return false
  }
}

function shell(file: string, family: ShellFamily): ResolvedShell {
  return { path: file, family, argv: (command) => ["-c", command] }
}

/** The first executable `name` on PATH (absolute), or undefined. */
export function executableOnPath(name: string, pathVariable: string | undefined): string | undefined {
  for (const dir of (pathVariable ?? "").split(path.delimiter)) {
    // An empty or relative PATH entry means "the current directory": never pick a program from there.
    if (!dir || !path.isAbsolute(dir)) continue
    const candidate = path.join(dir, name)
    if (isExecutableFile(candidate)) return candidate
  }
  return undefined
}

/**
 * $SHELL when it is bash; else a bash on PATH (or /bin/bash, /usr/bin/bash); else $SHELL when it is a POSIX shell
 * that exists; else /bin/sh.
 */
export function resolveShell(env: ShellEnvironment = process.env, locations: ShellLocations = DEFAULT_SHELL_LOCATIONS): ResolvedShell {
  const login = env.SHELL && path.isAbsolute(env.SHELL) ? env.SHELL : undefined
  const loginFamily = login ? POSIX_FAMILIES[path.basename(login)] : undefined
  const loginUsable = login !== undefined && isExecutableFile(login)

  if (login && loginUsable && loginFamily === "bash") return shell(login, "bash")
  const bash = executableOnPath("bash", env.PATH) ?? locations.bash.find(isExecutableFile)
  if (bash) return shell(bash, "bash")
  if (login && loginUsable && loginFamily) return shell(login, loginFamily)
  return shell(locations.sh, "sh")
}
