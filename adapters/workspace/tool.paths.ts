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
  checkToolPath(tool, raw)
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

/** The longest path the file system takes (Linux PATH_MAX), and the longest name of one of its parts (NAME_MAX). */
export const MAX_PATH_BYTES = 4096
export const MAX_NAME_BYTES = 255

/**
 * The one check every file tool path passes before anything touches the disk: no NUL byte, valid Unicode (a lone
 * surrogate has no file name), within the file system's length limits. Refuses in Forge's words, never Node's.
 */
export function checkToolPath(tool: string, raw: string): void {
  const shown = JSON.stringify(raw.length > 200 ? `${raw.slice(0, 200)}…` : raw)
  const nul = raw.indexOf("\0")
  if (nul >= 0) throw new FileToolError(`${tool}: the path ${shown} holds a NUL byte (at character ${nul + 1}); a path cannot hold one. Nothing was changed.`)
  const lone = loneSurrogateAt(raw)
  if (lone >= 0)
    throw new FileToolError(
      `${tool}: the path ${shown} is not valid Unicode (a lone surrogate at character ${lone + 1}), so it names no file. Nothing was changed.`,
    )
  const bytes = Buffer.byteLength(raw, "utf8")
  if (bytes > MAX_PATH_BYTES)
    throw new FileToolError(`${tool}: the path is ${bytes} bytes long, over the limit of ${MAX_PATH_BYTES} bytes a path can have. Nothing was changed.`)
  const long = raw.split(/[\\/]/).find((part) => Buffer.byteLength(part, "utf8") > MAX_NAME_BYTES)
  if (long !== undefined)
    throw new FileToolError(
      `${tool}: the path ${shown} has a part of ${Buffer.byteLength(long, "utf8")} bytes, over the limit of ${MAX_NAME_BYTES} bytes a file or folder name can have. Nothing was changed.`,
    )
}

/** The index of the first UTF-16 surrogate without its pair, or -1. */
function loneSurrogateAt(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) i++
      else return i
    } else if (code >= 0xdc00 && code <= 0xdfff) return i
  }
  return -1
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
