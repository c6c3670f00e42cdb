import type { ToolDefinition } from "@opencode-ai/plugin"
import type { ForgeOptions } from "../../../services/config/forge.options"
import { toShellRequest } from "../../../services/job/job.request"
import { type StorageTrouble, storageTroubleText } from "../../../services/lifecycle/storage.trouble"
import { withoutScreenFields } from "../tool.screen"

// Jobs run on the in-memory stand-in when the workspace database cannot be used: a job that dies with this host needs
// no more. A survive job does: only the database lets the next host adopt it, so it is refused while that is broken.

export function refuseSurviveWithoutDatabase(shell: ToolDefinition, options: ForgeOptions, trouble: () => Promise<StorageTrouble | undefined>): ToolDefinition {
  return {
    ...shell,
    async execute(args, ctx) {
      const survive = wouldSurvive(args, options, ctx.directory)
      const found = survive ? await trouble() : undefined
      if (found !== undefined) {
        throw new Error(
          `forge_shell: a survive job is refused — the next opencode could not adopt it. ${storageTroubleText(found)} Run it with survive: false, to end with this opencode.`,
        )
      }
      return shell.execute(args, ctx)
    },
  }
}

function wouldSurvive(args: unknown, options: ForgeOptions, directory: string): boolean {
  try {
    return toShellRequest(withoutScreenFields(args), { cwd: directory, survive: options.jobs.survive }, (cwd) => cwd).survive
  } catch {
    // Bad arguments are the tool's own to report.
    return false
  }
}
