import { lstat, readlink, realpath, stat } from "node:fs/promises"
import path from "node:path"
import { FileToolError } from "../../services/files/file.errors"

/** A file tool's path: as given (absolute, normalized), its real path (links resolved), and whether that is inside. */
export interface ToolPath {
  path: string
  real: string
  /** Inside the session's workspace, by real path: a link out of it is outside. */
  inside: boolean
  /** The path itself (its last part) is a symbolic link, so `real` is another file than the one named. */
  link: boolean
  /** For a link that points nowhere (its target missing): what it points to. */
  dangling?: string
}

/**
 * Resolves a file tool's `path` argument: only absolute paths are taken; the real path resolves every link (for a
 * file not there yet, its nearest existing folder's), so `..` and links cannot leave the workspace unseen.
 */
export async function resolveToolPath(tool: string, raw: string, workspace: string): Promise<ToolPath> {
  if (!path.isAbsolute(raw)) throw new FileToolError(`${tool}: path "${raw}" is relative: give the absolute path (e.g. ${path.join(workspace, raw)}).`)
  const normal = path.resolve(raw)
  const real = await realOf(normal)
  const root = await realOf(path.resolve(workspace))
  const link = await lstat(normal).then(
    (s) => s.isSymbolicLink(),
    () => false,
  )
  const inside = isWithin(real, root)
  const resolved: ToolPath = { path: normal, real, inside, link }
  // A dangling link's real path is the link's own (nothing to resolve it to): writing there would replace the link.
  const dangling = link ? await danglingTarget(normal) : undefined
  if (dangling !== undefined) resolved.dangling = dangling
  return resolved
}

/** What the link at `file` points to when that does not exist; undefined when it does. */
async function danglingTarget(file: string): Promise<string | undefined> {
  try {
    await stat(file)
    return undefined
  } catch {
    return readlink(file).catch(() => "?")
  }
}

/** Whether the real path `real` is the real folder `root` or inside it. */
export function isWithin(real: string, root: string): boolean {
  return real === root || real.startsWith(root.endsWith(path.sep) ? root : root + path.sep)
}

/** The real path of `file`, or of its nearest existing ancestor joined with the rest. */
export async function realOf(file: string): Promise<string> {
  const rest: string[] = []
  for (let at = file; ; ) {
    try {
      return path.join(await realpath(at), ...rest.reverse())
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      const parent = path.dirname(at)
      if ((code !== "ENOENT" && code !== "ENOTDIR") || parent === at) return file
      rest.push(path.basename(at))
      at = parent
    }
  }
}
