// What the forge.json loader has to say about a file it read. A finding never stops the loader: an error means
// something was dropped (an entry, a pool, a whole layer), a warning means something was ignored and the rest
// applies. Every message starts with the file it is about, so a finding read alone in the log still says where.

export type WorkerFindingLevel = "error" | "warning"

export interface WorkerFinding {
  level: WorkerFindingLevel
  /** The absolute path of the file (or the directory a scan started from) the finding is about. */
  source: string
  /** `<source>: <what was wrong and what the loader did about it>`. */
  message: string
}

/** Something dropped: an entry, a pool, or a file's whole layer. */
export function workerError(source: string, what: string): WorkerFinding {
  return { level: "error", source, message: `${source}: ${what}` }
}

/** Something ignored while the rest of the entry or file applies. */
export function workerWarning(source: string, what: string): WorkerFinding {
  return { level: "warning", source, message: `${source}: ${what}` }
}

/** One log line per finding: `forge.json error: <message>`. */
export function formatWorkerFinding(finding: WorkerFinding): string {
  return `forge.json ${finding.level}: ${finding.message}`
}
