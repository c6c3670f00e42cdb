import path from "node:path"
import { writtenPaths } from "../../../machines/agent.partition"
import { realOf, resolveToolPath } from "../../workspace/tool.paths"
import type { ForgeFragment, FragmentContext } from "../forge.fragment"
import type { ShellWatch } from "../../../services/files/forge.files"
import type { FileState } from "../../../services/files/journal.ports"
import type { HostFilesHandle } from "./file.handle"
import { FILE_TOOL_IDS, createFileTools } from "./file.tools"
import { RewindPreviews, rewindCallFields } from "./rewind.previews"
import { writeCallFields } from "./write.screen"
import type { Lazy } from "../lazy"
import { userTurnsOf } from "../session.messages"

/** User turns kept per session for the journal (the newest of each session; bounded like the session tree's cache). */
const TURNS_KEPT = 1_000
/** opencode's own calls in flight whose files were read before they ran (a call that never ends is dropped past this). */
const CALLS_KEPT = 200
/**
 * Shell tools: what a command changes is seen, not made, by Forge. The files the journal knows are fingerprinted before
 * each command and compared after it, and each one changed is journaled as seen (it breaks undo's and rewind's proof).
 */
const SHELL_TOOLS = new Set(["forge_shell", "bash"])

/**
 * The forge file tools' part of the plugin: the tools, and the user turn each change belongs to (the journal keeps it,
 * so a rewind can go back to a turn). A subagent's changes belong to its root session's current turn.
 */
export function fileFragment(ctx: FragmentContext, files: Lazy<HostFilesHandle>, workspace: string): ForgeFragment {
  const turns = new Map<string, string>()
  /** Per call of opencode's own write/edit/apply_patch: each file it names, with its bytes and mode before the call. */
  const pending = new Map<string, { path: string; before: FileState | undefined }[]>()
  /** Per shell call in flight: the fingerprints of the files the journal knows, taken before it ran. */
  const shells = new Map<string, ShellWatch>()
  const rootOf = async (sessionID: string) => ctx.tree.knownRootOf(sessionID) ?? (await ctx.tree.rootOf(sessionID))
  // Journaling another tool's change is best effort: Forge's trouble never stops or fails opencode's own tools.
  const besteffort = async (what: string, run: () => Promise<void>) => {
    try {
      await run()
    } catch (error) {
      ctx.log.warn(`file journal: ${what}: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  const previews = new RewindPreviews()
  return {
    id: "files",
    toolIds: FILE_TOOL_IDS,
    // A written file's content: its line shows the size and first lines, never the whole body.
    bodies: { forge_write: ["content"] },
    // A rewind's dialog says only "Call tool forge_rewind": its line lists the preview the user decides on. A write
    // over an existing file says what it replaces.
    screen({ tool, sessionID, args }) {
      if (tool === "forge_write") return writeCallFields(args, workspace)
      if (tool !== "forge_rewind") return undefined
      return rewindCallFields(args, previews.find(sessionID, args), workspace)
    },
    tools: createFileTools({
      previews,
      workspace,
      files: async () => (await files.get()).files,
      web: async () => (await files.get()).web,
      search: async (request) => (await files.get()).search(request),
      userTurns: (session) => userTurnsOf(ctx.client, session),
      async actor(tool) {
        const session = await rootOf(tool.sessionID)
        return { session, message: tool.messageID, turn: turns.get(session) }
      },
    }),
    hooks: {
      // opencode's own file tools are journaled like Forge's: the files they name are read before the call runs.
      async "tool.execute.before"(input, output) {
        if (SHELL_TOOLS.has(input.tool)) {
          // A workspace that never used Forge has no journal: a shell call there opens and writes nothing.
          if (ctx.isWorkspaceUnused()) return
          await besteffort(`${input.tool} before ${input.callID}`, async () => {
            // The journal keeps real paths: the workspace's own is what they start with.
            shells.set(input.callID, await (await files.get()).files.watch(await realOf(workspace)))
            if (shells.size > CALLS_KEPT) shells.delete(shells.keys().next().value as string)
          })
          return
        }
        const named = writtenPaths(input.tool, output.args)
        if (named.length === 0) return
        await besteffort(`${input.tool} before ${input.callID}`, async () => {
          const host = await files.get()
          const seen = []
          for (const raw of named) {
            const { real } = await resolveToolPath(input.tool, path.resolve(ctx.directory, raw), workspace)
            seen.push({ path: real, before: await host.files.snapshot(real) })
          }
          pending.set(input.callID, seen)
          if (pending.size > CALLS_KEPT) pending.delete(pending.keys().next().value as string)
        })
      },

      async "tool.execute.after"(input) {
        const watch = shells.get(input.callID)
        if (watch !== undefined) {
          shells.delete(input.callID)
          await besteffort(`${input.tool} after ${input.callID}`, async () => {
            const session = await rootOf(input.sessionID)
            await (await files.get()).files.observe(watch, input.tool, { session, turn: turns.get(session) })
          })
          return
        }
        const seen = pending.get(input.callID)
        if (seen === undefined) return
        pending.delete(input.callID)
        await besteffort(`${input.tool} after ${input.callID}`, async () => {
          const host = await files.get()
          const session = await rootOf(input.sessionID)
          for (const { path: file, before } of seen) await host.files.recordExternal(input.tool, file, before, { session, turn: turns.get(session) })
        })
      },

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
