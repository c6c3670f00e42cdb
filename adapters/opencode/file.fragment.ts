import type { ForgeFragment, FragmentContext } from "./forge.fragment"
import type { HostFilesHandle } from "./file.handle"
import { FILE_TOOL_IDS, createFileTools } from "./file.tools"
import type { Lazy } from "./lazy"

/** User turns kept per session for the journal (the newest of each session; bounded like the session tree's cache). */
const TURNS_KEPT = 1_000

/**
 * The forge file tools' part of the plugin: the tools, and the user turn each change belongs to (the journal keeps it,
 * so a rewind can go back to a turn). A subagent's changes belong to its root session's current turn.
 */
export function fileFragment(ctx: FragmentContext, files: Lazy<HostFilesHandle>, workspace: string): ForgeFragment {
  const turns = new Map<string, string>()
  return {
    id: "files",
    toolIds: FILE_TOOL_IDS,
    tools: createFileTools({
      workspace,
      files: async () => (await files.get()).files,
      web: async () => (await files.get()).web,
      async actor(tool) {
        const session = ctx.tree.knownRootOf(tool.sessionID) ?? (await ctx.tree.rootOf(tool.sessionID))
        return { session, message: tool.messageID, turn: turns.get(session) }
      },
    }),
    hooks: {
      async "chat.message"(input, output) {
        const id = (output.message as { id?: unknown } | undefined)?.id
        if (typeof id !== "string") return
        turns.delete(input.sessionID)
        turns.set(input.sessionID, id)
        if (turns.size > TURNS_KEPT) turns.delete(turns.keys().next().value as string)
      },
    },
  }
}
