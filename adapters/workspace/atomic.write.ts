import { randomBytes } from "node:crypto"
import { chmod, mkdir, rename, rm, stat, symlink, writeFile } from "node:fs/promises"
import path from "node:path"

/**
 * Replaces a file (text as UTF-8, or bytes as they are) so that readers see the old content or the new one, never a
 * mix: the content goes to a temp file in the same folder (same filesystem, so the rename is atomic) and is renamed
 * over the target. `beforeRename` may refuse the replacement at the last moment by throwing (the temp file is removed).
 * A file replaced keeps its permission bits (a new file from a temp file would lose them, a script its +x), unless
 * `mode` gives them.
 */
export async function writeFileAtomic(file: string, text: string | Uint8Array, beforeRename?: () => void, mode?: number): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true })
  const temp = tempOf(file)
  try {
    await writeFile(temp, text, typeof text === "string" ? { encoding: "utf8", flag: "wx" } : { flag: "wx" })
    const bits = mode ?? (await modeOf(file))
    if (bits !== undefined) await chmod(temp, bits & 0o7777)
    beforeRename?.()
    await rename(temp, file)
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
}

/** Replaces `file` with a symbolic link to `target` the same way: a temp link renamed over it. */
export async function writeLinkAtomic(file: string, target: string, beforeRename?: () => void): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true })
  const temp = tempOf(file)
  try {
    await symlink(target, temp)
    beforeRename?.()
    await rename(temp, file)
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
}

const tempOf = (file: string): string => path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`)

/** The permission bits of an existing file; undefined when there is none yet. */
async function modeOf(file: string): Promise<number | undefined> {
  try {
    return (await stat(file)).mode & 0o7777
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined
    throw error
  }
}
