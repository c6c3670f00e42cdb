import type { ToolContext } from "@opencode-ai/plugin"
import type { Confirm } from "../../services/lifecycle/lifecycle.ports"

/**
 * A lifecycle's dialogs are permission asks on keys the config hook forces to "ask"; any non-allow answer is a no. The
 * TUI draws such a dialog as "Call tool <key>" alone: the facts are on the call's line above it (tool.screen.ts).
 * "Allow always" covers this one document: its path is the only pattern remembered, and the confirm screen lists it.
 * `kind` names the document in the ask's metadata ("plan", "goal").
 */
export function dialogFor(ctx: ToolContext, kind: string): Confirm {
  return async (request) => {
    try {
      await ctx.ask({
        permission: request.permission,
        patterns: [request.subject],
        always: [request.subject],
        metadata: { [kind]: request.subject, summary: request.summary },
      })
      return true
    } catch {
      return false
    }
  }
}
