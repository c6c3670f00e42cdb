import { readdir, readFile, realpath, stat } from "node:fs/promises"
import os from "node:os"
import path from "node:path"
import type { ForgeJsonFiles, ForgeJsonRead } from "../../services/workers/worker.ports"

// forge.json files and the folders the sub-pool scan walks, on disk. The plugin only ever reads here: it never
// creates, writes or migrates a forge.json.

/** Where opencode keeps its global config (xdg-basedir's rule: a set XDG_CONFIG_HOME, else ~/.config), plus forge.json. */
export function globalForgeJsonPath(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  const configHome = env.XDG_CONFIG_HOME || path.join(home, ".config")
  return path.join(configHome, "opencode", "forge.json")
}

export class FsForgeJsonFiles implements ForgeJsonFiles {
  constructor(readonly globalPath: string = globalForgeJsonPath()) {}

  async read(file: string): Promise<ForgeJsonRead> {
    try {
      // A pipe or device under that name would block the read (and the host's start) forever: only plain files.
      if (!(await stat(file)).isFile()) return { kind: "error", error: "it is not a regular file" }
      return { kind: "text", text: await readFile(file, "utf8") }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      // ENOTDIR: a file named `.opencode` where the folder would be; there is no forge.json either way.
      if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing" }
      return { kind: "error", error: error instanceof Error ? error.message : String(error) }
    }
  }

  async subdirectories(dir: string): Promise<string[]> {
    try {
      // A Dirent of a symlink is no directory: linked folders are not followed, so the scan cannot loop.
      return (await readdir(dir, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name)
    } catch {
      // A folder the user cannot list holds no pool Forge could read; the scan goes on without it.
      return []
    }
  }

  async realpath(file: string): Promise<string> {
    try {
      return await realpath(file)
    } catch {
      return file
    }
  }
}
