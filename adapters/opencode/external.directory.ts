import type { ToolContext } from "@opencode-ai/plugin"

/**
 * Asks opencode's external_directory permission for a folder outside the session's workspace, as opencode's own
 * tools do (the user may allow it once or always). Resolves to whether the user allowed it.
 */
export async function allowsExternalDirectory(ctx: ToolContext, folder: string, target: string): Promise<boolean> {
  try {
    await ctx.ask({ permission: "external_directory", patterns: [`${folder}/*`], always: [`${folder}/*`], metadata: { filepath: target, parentDir: folder } })
    return true
  } catch {
    return false
  }
}
