import { statSync } from "node:fs"
import { mkdir, readFile, readdir, realpath, stat } from "node:fs/promises"
import path from "node:path"
import type { PlanFiles } from "../../services/plan/plan.ports"
import { PLAN_DIR } from "../../services/plan/plan.paths"
import { writeFileAtomic } from "./atomic.write"

// The plan folder of a workspace on disk. Paths are checked twice: by name (inside .opencode/plan/) and by real
// path, so a symbolic link (the document's, or the folder's) never hands over or overwrites a file outside the
// workspace, as opencode's own external_directory permission would refuse it.

export class FsPlanFiles implements PlanFiles {
  private root: Promise<string> | undefined

  constructor(private readonly workspace: string) {}

  /** Every `.md` entry of the plan folder, whatever it is: one that is no readable file says why when it is read. */
  async list(): Promise<string[]> {
    const entries = await readdir(path.join(this.workspace, PLAN_DIR), { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return []
      throw error
    })
    return entries.filter((e) => e.name.endsWith(".md")).map((e) => `${PLAN_DIR}/${e.name}`)
  }

  async read(planPath: string): Promise<string | undefined> {
    const real = await this.confined(planPath, "read")
    if (real === undefined) return undefined
    const kind = await stat(real).catch(() => undefined)
    if (kind?.isDirectory()) throw new Error(`plan document ${planPath} is a folder, not a file: move it out of ${PLAN_DIR}/ or rename it so its name does not end in .md`)
    if (kind !== undefined && !kind.isFile()) throw new Error(`plan document ${planPath} is not a regular file (a device, socket or pipe): Forge reads only plain files`)
    return readFile(real, "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined
      throw new Error(`plan document ${planPath} cannot be read (${error.code ?? error.message}): check its permissions`)
    })
  }

  stamp(planPath: string): string | undefined {
    try {
      const stat = statSync(this.resolve(planPath), { throwIfNoEntry: false })
      return stat === undefined ? undefined : `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`
    } catch {
      return undefined
    }
  }

  async write(planPath: string, text: string): Promise<void> {
    const file = this.resolve(planPath)
    await mkdir(path.dirname(file), { recursive: true })
    // An existing document is replaced where it really lives (a link inside the workspace stays a link).
    const real = (await this.confined(planPath, "write")) ?? path.join(await this.realFolder(file, planPath), path.basename(file))
    if ((await stat(real).catch(() => undefined))?.isDirectory()) {
      throw new Error(`plan document ${planPath} is a folder, not a file: move it out of ${PLAN_DIR}/ so the plan can be written`)
    }
    await writeFileAtomic(real, text)
  }

  /** The real path of an existing document, refused when it leaves the workspace; undefined when there is none. */
  private async confined(planPath: string, action: "read" | "write"): Promise<string | undefined> {
    const file = this.resolve(planPath)
    const real = await realpath(file).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined
      throw new Error(`plan document ${planPath} cannot be resolved (${error.code ?? error.message})`)
    })
    if (real === undefined) return undefined
    await this.checkInside(real, planPath, action)
    return real
  }

  /** The real folder a new document goes to, refused when the plan folder itself links out of the workspace. */
  private async realFolder(file: string, planPath: string): Promise<string> {
    const folder = await realpath(path.dirname(file))
    await this.checkInside(folder, planPath, "write")
    return folder
  }

  private async checkInside(real: string, planPath: string, action: "read" | "write"): Promise<void> {
    this.root ??= realpath(this.workspace)
    const root = await this.root
    if (real !== root && !real.startsWith(root + path.sep)) {
      throw new Error(
        `plan document ${planPath} resolves to ${real}, outside the workspace ${root}: Forge does not ${action} plan documents through ` +
          `symbolic links that leave the workspace. Replace the link with the document itself.`,
      )
    }
  }

  private resolve(planPath: string): string {
    const file = path.resolve(this.workspace, planPath)
    const dir = path.resolve(this.workspace, PLAN_DIR)
    if (!file.startsWith(dir + path.sep)) throw new Error(`plan path "${planPath}" is outside ${PLAN_DIR}/`)
    return file
  }
}
