import { mkdirSync, realpathSync } from "node:fs"
import { readdir, rm, stat } from "node:fs/promises"
import { tmpdir } from "node:os"
import path from "node:path"
import type { JobLogs } from "../../services/job/job.ports"
import { openFilesIn } from "../process/proc.table"

/** At most this many job logs stay on disk; the oldest finished ones rotate out. */
export const MAX_JOB_LOGS = 50

/** `<tmp>/forgecharts/jobs/`: job output is runtime debris, not project data. */
export function defaultJobLogDir(): string {
  return path.join(tmpdir(), "forgecharts", "jobs")
}

/**
 * Job logs in one folder, bounded by count. The folder is shared by every opencode process of the machine, so a
 * rotation never removes a log some process still writes (another host's running job), only finished ones.
 */
export class FsJobLogs implements JobLogs {
  constructor(
    private readonly dir: string = defaultJobLogDir(),
    private readonly keep: number = MAX_JOB_LOGS,
  ) {
    mkdirSync(dir, { recursive: true })
  }

  pathFor(jobId: string): string {
    if (!/^[A-Za-z0-9_-]+$/.test(jobId)) throw new Error(`job id "${jobId}" is not a safe file name`)
    return path.join(this.dir, `${jobId}.log`)
  }

  async exists(jobId: string): Promise<boolean> {
    let file: string
    try {
      file = this.pathFor(jobId)
    } catch {
      return false
    }
    return (await stat(file).catch(() => undefined))?.isFile() ?? false
  }

  async rotate(keepJobIds: ReadonlySet<string>): Promise<void> {
    const names = (await readdir(this.dir)).filter((n) => n.endsWith(".log"))
    if (names.length <= this.keep) return
    const entries = await Promise.all(
      names.map(async (name) => ({ name, mtime: (await stat(path.join(this.dir, name)).catch(() => undefined))?.mtimeMs ?? 0 })),
    )
    const realDir = realpathSync(this.dir)
    const held = openFilesIn(realDir)
    const removable = entries
      .filter((e) => !keepJobIds.has(e.name.slice(0, -".log".length)) && !held.has(path.join(realDir, e.name)))
      .sort((a, b) => a.mtime - b.mtime)
    for (const entry of removable.slice(0, names.length - this.keep)) {
      await rm(path.join(this.dir, entry.name), { force: true })
      // The exit status a job's shim kept beside the log goes with it.
      await rm(path.join(this.dir, `${entry.name.slice(0, -".log".length)}.exit`), { force: true })
    }
  }
}
