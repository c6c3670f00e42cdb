import type { ToolContext, ToolDefinition } from "@opencode-ai/plugin"
import path from "node:path"
import * as z from "zod"
import { FILE_TOOL_IDS } from "../../../machines/agent.partition"
import type { FileOutcome, ForgeFiles } from "../../../services/files/forge.files"
import type { WebFetch } from "../../../services/files/fetch.ports"
import { DEFAULT_FETCH_MAX_LENGTH, fetchAnswer } from "../../../services/files/fetch.page"
import { FileToolError } from "../../../services/files/file.errors"
import type { JournalActor } from "../../../services/files/journal.types"
import type { SearchAnswer, SearchRequest } from "../../../services/files/search"
import { patchListSchema } from "../../../services/files/patch.schema"
import { MAX_GLOB_CHARS, MAX_REGEX_CHARS } from "../../../services/files/search.limits"
import { databasePath } from "../../storage/database.path"
import { type ToolPath, realOf, resolveToolPath } from "../../workspace/tool.paths"
import { boundedText } from "../arg.limits"
import { allowsExternalDirectory } from "../external.directory"
import { type ForgeToolResult, forgeTool } from "../tool.args"
import { screenText } from "../tool.screen"
import type { RewindPreviews } from "./rewind.previews"
import { rewindTool } from "./rewind.tool"

// The forge file tools. Each is a thin shell: its args are parsed by forgeTool (the partition asked first), its path
// resolved to a real path and confined to the session's workspace (outside it, the user's external_directory
// permission decides, as for opencode's own tools), then the files service acts and journals.

export { FILE_TOOL_IDS }

const absolutePath = z.string().min(1).describe("Absolute path of the file")

export interface FileToolsDeps {
  /** The session's workspace: the git worktree root, or the folder itself. */
  workspace: string
  files: () => Promise<ForgeFiles>
  web: () => Promise<WebFetch>
  search: (request: SearchRequest) => Promise<SearchAnswer>
  /** Who a change is journaled for: the root session, the call's message, the user turn it belongs to. */
  actor(ctx: ToolContext): Promise<JournalActor>
  /** The session's user turns, oldest first (the id of each user message and when it was sent). */
  userTurns(session: string): Promise<{ id: string; at: number }[]>
  /** The rewinds previewed: a confirming call's line and its dialog draw from them. */
  previews: RewindPreviews
}

/** The tools that change a file: none of them may change Forge's own store. */
const CHANGING_TOOLS = new Set(["forge_write", "forge_patch", "forge_remove"])
/** The database file's companions SQLite keeps beside it (write-ahead log, shared memory, rollback journal). */
const STORE_SUFFIXES = ["", "-wal", "-shm", "-journal"]

export function createFileTools(deps: FileToolsDeps): Record<(typeof FILE_TOOL_IDS)[number], ToolDefinition> {
  let store: Promise<Set<string>> | undefined
  /**
   * Forge's own store by real path: the workspace database and its companions (the journal's blobs live in it). Loop
   * worktrees under .opencode/forge/worktrees/ are no part of it and stay writable.
   */
  const storeFiles = (): Promise<Set<string>> =>
    (store ??= realOf(databasePath(deps.workspace)).then((db) => new Set(STORE_SUFFIXES.map((suffix) => db + suffix))))
  /** The real path, once it is inside the workspace or the user allowed the folder outside it. */
  const allowed = async (tool: string, raw: string, resolved: ToolPath, ctx: ToolContext): Promise<string> => {
    if (resolved.inside) return resolved.real
    const folder = path.dirname(resolved.real)
    if (!(await allowsExternalDirectory(ctx, folder, resolved.real)))
      throw new FileToolError(
        `${tool}: ${raw} is outside this session's workspace (${deps.workspace}) and access to ${folder} was not allowed (the external_directory permission).`,
      )
    return resolved.real
  }
  /** The real path of the call's path (a file or a folder), confined. */
  const confined = async (tool: string, raw: string, ctx: ToolContext): Promise<string> =>
    allowed(tool, raw, await resolveToolPath(tool, raw, deps.workspace), ctx)
  /**
   * The real path of the call's file, confined. A trailing "/" names a folder (the path would otherwise lose it and
   * name a file, so `dir/` would create a file "dir"). forge_remove takes no link: it would remove the file the link
   * points to and leave the link dangling.
   */
  const confinedFile = async (tool: string, raw: string, ctx: ToolContext): Promise<string> => {
    if (/[^/]\/+$/.test(raw))
      throw new FileToolError(`${tool}: path "${raw}" ends with "/", so it names a folder; ${tool} takes a file: give its path without the trailing "/".`)
    const resolved = await resolveToolPath(tool, raw, deps.workspace)
    if (resolved.dangling !== undefined)
      throw new FileToolError(
        `${tool}: ${resolved.path} is a symbolic link to ${resolved.dangling}, which does not exist; nothing was changed. Give the path of the file itself (a write would replace the link with a file).`,
      )
    if (CHANGING_TOOLS.has(tool) && (await storeFiles()).has(resolved.real))
      throw new FileToolError(
        `${tool}: ${resolved.path} is Forge's own store (its database, which holds the undo journal); Forge's file tools never change it. Nothing was written.`,
      )
    if (tool === "forge_remove" && resolved.link)
      throw new FileToolError(
        `${tool}: ${resolved.path} is a symbolic link to ${resolved.real}; forge_remove removes files, not links, so nothing was removed. Remove the link with forge_shell (rm), or give the file's own path to remove the file.`,
      )
    return allowed(tool, raw, resolved, ctx)
  }
  return {
    forge_read: forgeTool("forge_read", {
      description:
        "Read a text file by absolute path: its lines numbered, up to 2,000 at a time (offset and limit page on). Binary files are refused with their kind and size; a file that is not UTF-8 is refused at its first bad byte, never shown mangled.",
      args: {
        path: absolutePath,
        offset: z.number().int().min(1).optional().describe("First line to show, from 1"),
        limit: z.number().int().min(1).optional().describe("Lines to show; 2,000 by default"),
      },
      async execute(args, ctx) {
        const file = await confinedFile("forge_read", args.path, ctx)
        return answer(await (await deps.files()).read(file, { offset: args.offset, limit: args.limit }), file)
      },
    }),
    forge_write: forgeTool("forge_write", {
      description:
        "Write a whole file by absolute path, creating its folders. An existing file is refused unless overwrite is true. Atomic (never half written) and journaled: forge_undo takes it back.",
      args: {
        path: absolutePath,
        content: boundedText("file").describe("The file's whole new content"),
        overwrite: z.boolean().default(false).describe("Replace an existing file"),
      },
      async execute(args, ctx) {
        const file = await confinedFile("forge_write", args.path, ctx)
        return answer(await (await deps.files()).write(file, args.content, args.overwrite, await deps.actor(ctx)), file)
      },
    }),
    forge_patch: forgeTool("forge_patch", {
      description:
        "Change a text file by exact text matches (never fuzzy): prepend, append or replace `content` at `search`, or swap `search` with `with`. A text found more than once needs its `occurrence`; a text not found is refused and named. All patches of a call apply together or none does; line endings and the final newline are kept. Journaled: forge_undo takes it back.",
      args: { path: absolutePath, patches: patchListSchema },
      async execute(args, ctx) {
        const file = await confinedFile("forge_patch", args.path, ctx)
        return answer(await (await deps.files()).patch(file, args.patches, await deps.actor(ctx)), file)
      },
    }),
    forge_remove: forgeTool("forge_remove", {
      description: "Remove a file by absolute path (not a folder). Journaled: forge_undo restores it.",
      args: { path: absolutePath },
      async execute(args, ctx) {
        const file = await confinedFile("forge_remove", args.path, ctx)
        return answer(await (await deps.files()).remove(file, await deps.actor(ctx)), file)
      },
    }),
    forge_undo: forgeTool("forge_undo", {
      description:
        "Revert the most recent Forge change of a file (write, patch, remove); call again to walk further back. Undoing a creation removes the file, undoing a removal restores it. Refused when the file changed since that change.",
      args: { path: absolutePath },
      async execute(args, ctx) {
        const file = await confinedFile("forge_undo", args.path, ctx)
        return answer(await (await deps.files()).undo(file, await deps.actor(ctx)), file)
      },
    }),
    forge_rewind: rewindTool({ files: deps.files, actor: deps.actor, userTurns: deps.userTurns, previews: deps.previews }),
    forge_search: forgeTool("forge_search", {
      description:
        "Search a folder (recursively) or one file for a regular expression, line by line: bare (useState\\() or /source/flags (/todo/i). The engine is RE2 (linear time; JavaScript syntax without lookahead, lookbehind or backreferences). .gitignore is honoured, binary and huge files are skipped, file_pattern (a glob: *.ts, src/**/*.ts) narrows the files. At most 200 matching lines are shown, grouped by file with line numbers; a closing note says what was cut.",
      args: {
        path: z.string().min(1).describe("Absolute path of the folder (or file) to search"),
        regex: z.string().max(MAX_REGEX_CHARS).describe("Regular expression (RE2: no lookaround or backreferences), bare or /source/flags"),
        file_pattern: z.string().max(MAX_GLOB_CHARS).optional().describe("Glob of the files to search, e.g. *.ts"),
      },
      async execute(args, ctx) {
        const root = await confined("forge_search", args.path, ctx)
        const answer = await deps.search({ path: root, regex: args.regex, filePattern: args.file_pattern })
        return { output: answer.text, title: screenText(`${answer.matches} matches in ${answer.files} files`, 120), metadata: { path: root } }
      },
    }),
    forge_fetch: forgeTool("forge_fetch", {
      description:
        "Fetch an http(s) URL: HTML as markdown (raw: true for the page as served), text and JSON as they are; other content is refused. Long content comes in windows of max_length characters: start_index pages on.",
      args: {
        url: boundedText("url").min(1).describe("http:// or https:// URL"),
        raw: z.boolean().default(false).describe("The content as served instead of markdown"),
        max_length: z.number().int().min(1).max(1_000_000).default(DEFAULT_FETCH_MAX_LENGTH).describe("Characters to return"),
        start_index: z.number().int().min(0).default(0).describe("First character to return, for paging"),
      },
      async execute(args) {
        const fetched = await (await deps.web()).fetch(args.url, { raw: args.raw })
        const output = fetchAnswer(fetched, { startIndex: args.start_index, maxLength: args.max_length })
        return { output, title: screenText(`Fetched ${fetched.finalUrl}`, 120), metadata: { url: fetched.finalUrl } }
      },
    }),
  }
}

function answer(outcome: FileOutcome, file: string): ForgeToolResult {
  return { output: outcome.output, title: screenText(outcome.title, 120), metadata: { path: file } }
}
