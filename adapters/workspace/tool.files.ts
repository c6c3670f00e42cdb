import { readFile, rm, stat } from "node:fs/promises"
import type { PathStat, ToolFiles } from "../../services/files/file.ports"
import { writeFileAtomic } from "./atomic.write"

/** The forge file tools' files on disk: whole-file reads, atomic writes (temp file and rename), removals. */
export const fsToolFiles: ToolFiles = {
  async read(file) {
    try {
      return await readFile(file)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined
      throw error
    }
  },
  write: (file, bytes) => writeFileAtomic(file, bytes),
  async remove(file) {
    await rm(file, { force: true })
  },
  async stat(file): Promise<PathStat> {
    try {
      const s = await stat(file)
      return s.isFile() ? { kind: "file", size: s.size } : { kind: s.isDirectory() ? "folder" : "other", size: 0 }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing", size: 0 }
      throw error
    }
  },
}
