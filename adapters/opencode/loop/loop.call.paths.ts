import path from "node:path"
import { writtenPaths } from "../../../machines/agent.partition"
import { realOf } from "../../workspace/tool.paths"

// What a tool call of a loop's session writes or runs in, by real path, for the loop's worktree gate: the files
// opencode's own write tools name, the path of Forge's changing file tools, the folder a shell command runs in (the
// session's folder when the call names none). A call that names none (a read, a search, a task) gives no path.

const FORGE_PATH_TOOLS: ReadonlySet<string> = new Set(["forge_write", "forge_patch", "forge_remove", "forge_undo"])
const SHELL_FOLDER_ARG: Readonly<Record<string, string>> = { forge_shell: "cwd", bash: "workdir", shell: "workdir" }

export async function loopCallPaths(tool: string, args: unknown, directory: string): Promise<string[]> {
  const given = (key: string): unknown => (typeof args === "object" && args !== null ? (args as Record<string, unknown>)[key] : undefined)
  const named: string[] = [...writtenPaths(tool, args)]
  const pathArg = given("path")
  if (FORGE_PATH_TOOLS.has(tool) && typeof pathArg === "string") named.push(pathArg)
  const folderKey = SHELL_FOLDER_ARG[tool]
  if (folderKey !== undefined) {
    const folder = given(folderKey)
    named.push(typeof folder === "string" && folder.trim() !== "" ? folder : directory)
  }
  return Promise.all(named.map((p) => realOf(path.resolve(directory, p))))
}
