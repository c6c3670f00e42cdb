import { statSync } from "node:fs"
import { mkdir, readFile, readdir, realpath, stat } from "node:fs/promises"
import path from "node:path"
import type { DocumentFiles } from "../../services/documents/document.ports"
import { DocumentChangedError } from "../../services/documents/document.errors"
import { writeFileAtomic } from "./atomic.write"

// One folder of documents in a workspace on disk. Paths are checked twice: by name (inside the folder) and by real
// path, so a symbolic link (the document's, or the folder's) never hands over or overwrites a file outside the
// workspace, as opencode's own external_directory permission would refuse it.

export interface DocumentFolder {
  /** The folder, relative to the workspace root, e.g. ".opencode/plan". */
  folder: string
  /** The document kind, named in every error ("plan document …", "goal path …"). */
  kind: string
}

export class FsDocumentFiles implements DocumentFiles {
  private root: Promise<string> | undefined
  private readonly folder: string
  private readonly kind: string

  constructor(
    private readonly workspace: string,
    where: DocumentFolder,
  ) {
    this.folder = where.folder
    this.kind = where.kind
  }

  /** Every `.md` entry of the folder, whatever it is: one that is no readable file says why when it is read. */
  async list(): Promise<string[]> {
    const entries = await readdir(path.join(this.workspace, this.folder), { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return []
      throw error
    })
    return entries.filter((e) => e.name.endsWith(".md")).map((e) => `${this.folder}/${e.name}`)
  }

  async read(docPath: string): Promise<string | undefined> {
    const real = await this.confined(docPath, "read")
    if (real === undefined) return undefined
    const kind = await stat(real).catch(() => undefined)
    if (kind?.isDirectory()) {
      throw new Error(`${this.kind} document ${docPath} is a folder, not a file: move it out of ${this.folder}/ or rename it so its name does not end in .md`)
    }
    if (kind !== undefined && !kind.isFile()) {
      throw new Error(`${this.kind} document ${docPath} is not a regular file (a device, socket or pipe): Forge reads only plain files`)
    }
    return readFile(real, "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined
      throw new Error(`${this.kind} document ${docPath} cannot be read (${error.code ?? error.message}): check its permissions`)
    })
  }

  stamp(docPath: string): string | undefined {
    try {
      const stat = statSync(this.resolve(docPath), { throwIfNoEntry: false })
      return stat === undefined ? undefined : `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`
    } catch {
      return undefined
    }
  }

  modifiedAt(docPath: string): number | undefined {
    try {
      return statSync(this.resolve(docPath), { throwIfNoEntry: false })?.mtimeMs
    } catch {
      return undefined
    }
  }

  async write(docPath: string, text: string, unchangedSince?: string): Promise<void> {
    const file = this.resolve(docPath)
    await mkdir(path.dirname(file), { recursive: true })
    // An existing document is replaced where it really lives (a link inside the workspace stays a link).
    const real = (await this.confined(docPath, "write")) ?? path.join(await this.realFolder(file, docPath), path.basename(file))
    if ((await stat(real).catch(() => undefined))?.isDirectory()) {
      throw new Error(`${this.kind} document ${docPath} is a folder, not a file: move it out of ${this.folder}/ so the ${this.kind} can be written`)
    }
    // The compare and the swap are as close as a file allows: a stat, then the rename, with nothing awaited between.
    const unchanged = () => {
      if (unchangedSince !== undefined && this.stamp(docPath) !== unchangedSince) throw new DocumentChangedError(docPath)
    }
    await writeFileAtomic(real, text, unchanged)
  }

  /** The real path of an existing document, refused when it leaves the workspace; undefined when there is none. */
  private async confined(docPath: string, action: "read" | "write"): Promise<string | undefined> {
    const file = this.resolve(docPath)
    const real = await realpath(file).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined
      throw new Error(`${this.kind} document ${docPath} cannot be resolved (${error.code ?? error.message})`)
    })
    if (real === undefined) return undefined
    await this.checkInside(real, docPath, action)
    return real
  }

  /** The real folder a new document goes to, refused when the document folder itself links out of the workspace. */
  private async realFolder(file: string, docPath: string): Promise<string> {
    const folder = await realpath(path.dirname(file))
    await this.checkInside(folder, docPath, "write")
    return folder
  }

  private async checkInside(real: string, docPath: string, action: "read" | "write"): Promise<void> {
    this.root ??= realpath(this.workspace)
    const root = await this.root
    if (real !== root && !real.startsWith(root + path.sep)) {
      throw new Error(
        `${this.kind} document ${docPath} resolves to ${real}, outside the workspace ${root}: Forge does not ${action} ${this.kind} documents through ` +
          `symbolic links that leave the workspace. Replace the link with the document itself.`,
      )
    }
  }

  private resolve(docPath: string): string {
    const file = path.resolve(this.workspace, docPath)
    const dir = path.resolve(this.workspace, this.folder)
    if (!file.startsWith(dir + path.sep)) throw new Error(`${this.kind} path "${docPath}" is outside ${this.folder}/`)
    return file
  }
}
