// What kind of tool a call is, for the gates of every lifecycle that confines a session: an auditor (a loop's, a
// goal's) may read and run checks, and never changes a file.

/** Tools that change files: an auditor may read and run checks, never change a file. */
const FILE_CHANGING_TOOLS: ReadonlySet<string> = new Set([
  "write",
  "edit",
  "multiedit",
  "patch",
  "apply_patch",
  "applypatch",
  "forge_write",
  "forge_patch",
  "forge_remove",
  "forge_undo",
  "forge_rewind",
])

/** Whether a tool changes files (any tool named like a patch tool counts). */
export function isFileChangingTool(tool: string): boolean {
  return FILE_CHANGING_TOOLS.has(tool) || tool.includes("patch")
}
