import { type LoopSandboxMode, type ShellConfinement, isSealed } from "../../machines/loop/loop.sandbox"
import type { LoopSandboxes } from "../../services/loop/loop.ports"
import { bwrapArgv } from "./bwrap.argv"
import { findBwrap, probeBwrap } from "./bwrap.probe"

/** A confined session's shells: the bubblewrap command line they run in, and whether it is sealed (loop.sandbox.ts). */
export interface SessionSandbox {
  argv: readonly string[]
  sealed: boolean
}

/** The loop sandbox on this machine: bubblewrap as the user's options set it up, tried for real at each loop start. */
export class BwrapSandboxes implements LoopSandboxes {
  readonly mode: LoopSandboxMode
  readonly network: boolean
  private readonly workspace: string

  constructor(options: { mode: LoopSandboxMode; network: boolean; workspace: string }) {
    this.mode = options.mode
    this.network = options.network
    this.workspace = options.workspace
  }

  problem(): Promise<string | null> {
    return probeBwrap(findBwrap())
  }

  /**
   * The bubblewrap command line for one confined shell. Without a bwrap on PATH it still names `bwrap`, so the shell
   * fails to start rather than run unconfined.
   */
  argvFor(confinement: ShellConfinement): string[] {
    return bwrapArgv(confinement, { bwrap: findBwrap() ?? "bwrap", workspace: this.workspace })
  }

  /** A confined session's sandbox: its command line, and whether it is sealed. */
  sandboxFor(confinement: ShellConfinement): SessionSandbox {
    return { argv: this.argvFor(confinement), sealed: isSealed(confinement) }
  }
}
