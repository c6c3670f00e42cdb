import { existsSync } from "node:fs"
import type { LoopSandboxMode } from "../../machines/loop/loop.sandbox"
import type { Logger } from "../../services/lifecycle/lifecycle.ports"
import { installShellShim, opencodeShell, shimFolder } from "../sandbox/shell.shim"
import type { LiveConfig } from "./config.hook"

// The sandbox's way into opencode's bash tool: Forge's shim (adapters/sandbox/shell.shim.ts) becomes opencode's shell
// in the live config, running the shell opencode would have run, and a confined session's shells (a loop's pass, a
// goal's auditor) inside their sandbox. One per plugin instance: every fragment that confines a session asks it.

export class SandboxShell {
  private shim: string | undefined
  private config: LiveConfig | undefined

  constructor(private readonly options: { mode: LoopSandboxMode; log: Logger }) {}

  /** The config hook: installs the shim and makes it opencode's shell (nothing when the sandbox is off). */
  async configure(cfg: LiveConfig): Promise<void> {
    if (this.options.mode === "off") return
    try {
      const real = opencodeShell(typeof cfg.shell === "string" && cfg.shell !== "" ? cfg.shell : undefined)
      this.shim = await installShellShim(shimFolder(), real)
      cfg.shell = this.shim
      this.config = cfg
    } catch (error) {
      this.options.log.error(
        `the sandbox's shell could not be installed, so confined sessions (loop passes, goal auditors) cannot use opencode's bash (forge_shell still runs sandboxed): ${error instanceof Error ? error.message : String(error)}`,
      )
    }
  }

  /** Why opencode's bash cannot run a confined shell now, or null when Forge's shim is opencode's shell. */
  trouble(): string | null {
    if (this.shim === undefined || this.config === undefined) return "Forge's sandbox shell could not be installed as opencode's shell (the log says why)"
    if (this.config.shell !== this.shim) return `opencode's shell is now ${JSON.stringify(this.config.shell)}, not Forge's sandbox shell ${this.shim}`
    if (!existsSync(this.shim)) return `Forge's sandbox shell ${this.shim} is gone (restart opencode to write it again)`
    return null
  }
}

/**
 * A confined session calls opencode's bash while Forge's sandbox shell is not opencode's shell: the call is refused
 * (its machine says the session is confined; this is why the confinement cannot be made now). `whose`: "loop x's
 * passes", "goal y's auditor".
 */
export function sandboxBashRefusal(whose: string, trouble: string): string {
  return (
    `sandbox gate: the shells of ${whose} run only inside its sandbox, and opencode's bash cannot reach it now: ${trouble}. ` +
    "Run the command with forge_shell (it runs inside the sandbox), or restart opencode so Forge installs its shell again."
  )
}
