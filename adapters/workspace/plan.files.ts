import { statSync } from "node:fs"
import { readFile, readdir } from "node:fs/promises"
import path from "node:path"
import type { PlanFiles } from "../../services/plan/plan.ports"
import { PLAN_DIR } from "../../services/plan/plan.paths"
import { writeFileAtomic } from "./atomic.write"

/** The plan folder of a workspace on disk. */
export class FsPlanFiles implements PlanFiles {
  constructor(private readonly workspace: string) {}

  async list(): Promise<string[]> {
    const entries = await readdir(path.join(this.workspace, PLAN_DIR), { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return []
      throw error
    })
    return entries.filter((e) => e.isFile() && e.name.endsWith(".md")).map((e) => `${PLAN_DIR}/${e.name}`)
  }

  async read(planPath: string): Promise<string | undefined> {
    return readFile(this.resolve(planPath), "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined
      throw error
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
    await writeFileAtomic(this.resolve(planPath), text)
  }

  private resolve(planPath: string): string {
    const file = path.resolve(this.workspace, planPath)
    const dir = path.resolve(this.workspace, PLAN_DIR)
    if (!file.startsWith(dir + path.sep)) throw new Error(`plan path "${planPath}" is outside ${PLAN_DIR}/`)
    return file
  }
}
