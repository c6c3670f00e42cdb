import path from "node:path"
import { parseForgeJson, type WorkerEntry } from "./forge.json.parse"
import { type WorkerFinding, workerError, workerWarning } from "./worker.findings"
import type { ForgeJsonFiles, ForgeJsonRead } from "./worker.ports"

// Which forge.json files the host's workers come from, and the agent names they materialize as. Per anchor (in the
// order the host met them): the ROOT pool, the nearest `.opencode/forge.json` walking up from the anchor laid over
// the global layer per id; then every SUB-POOL, a `.opencode/forge.json` a bounded breadth-first scan finds below the
// anchor. A pool is its file's real path, so a file reached twice materializes once, in the role it was met first.
// The primary anchor's root pool keeps plain `forge-<id>` names; every other pool is `forge-<ns>-<id>`. Whatever
// cannot be materialized (a taken namespace, a taken name) is dropped with an error naming both files.

export const WORKER_SCAN_BUDGET = 2_000
/** Folders the scan lists at once. */
const SCAN_BATCH = 32
/**
 * Dependency and build output folders the scan never enters. Hidden folders (`.git`, `.venv`, `.opencode` itself…)
 * are not entered either: a pool lives in a project folder's `.opencode/`, which is looked at, not walked.
 */
export const SCAN_SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set(["node_modules", "dist", "vendor", "target", "__pycache__"])

const CONFIG_DIR = ".opencode"
const FILE_NAME = "forge.json"

export type WorkerPoolOrigin = "global" | "project" | "sub"

export interface MaterializedWorker {
  /** The agent name: `forge-<id>` (primary root pool) or `forge-<ns>-<id>`. */
  agentId: string
  entry: WorkerEntry
  /** The pool's identity (its file's real path). */
  pool: string
  /** The file that defined the entry: the pool's own, or the global layer under a root pool. */
  source: string
}

export interface WorkerPool {
  /** The pool's identity: the real path of its forge.json (the global file for a primary pool with no project file). */
  file: string
  /** The anchor whose walk or scan met the pool first. */
  anchor: string
  origin: WorkerPoolOrigin
  primary: boolean
  /** The infix of namespaced pools; none for the primary root pool. */
  ns?: string
  agents: MaterializedWorker[]
}

export interface WorkerRoster {
  pools: WorkerPool[]
  /** Every pool's agents, in pool order. */
  workers: MaterializedWorker[]
  findings: WorkerFinding[]
  /** forge.json files nearest to a probed directory that no anchor's pools include (a host init there would add them). */
  uncovered: string[]
}

export interface ResolveWorkerPoolsOptions {
  /** The host's anchors, the primary first (WorkerAnchors.list()). */
  anchors: readonly string[]
  files: ForgeJsonFiles
  /** Directories listed per anchor's scan, the anchor itself included. */
  scanBudget?: number
  /** Directories to check for a forge.json the anchors do not cover (a session's own workspace, say). */
  probes?: readonly string[]
}

interface LoadedFile {
  /** Real path: the pool identity. */
  file: string
  pool?: string
  agents: WorkerEntry[]
}

interface Candidate {
  file: string
  anchor: string
  origin: WorkerPoolOrigin
  primary: boolean
  ns?: string
  entries: { entry: WorkerEntry; source: string }[]
}

export async function resolveWorkerPools(options: ResolveWorkerPoolsOptions): Promise<WorkerRoster> {
  const { anchors, files, scanBudget = WORKER_SCAN_BUDGET } = options
  const findings: WorkerFinding[] = []
  const seen = new Set<string>()
  const load = async (written: string, read: ForgeJsonRead): Promise<LoadedFile | undefined> => {
    const file = await files.realpath(written)
    if (seen.has(file)) return undefined
    seen.add(file)
    return loadFile(file, read, findings)
  }
  const globalRead = await files.read(files.globalPath)
  const global = globalRead.kind === "missing" ? undefined : loadFile(await files.realpath(files.globalPath), globalRead, findings)
  const roster = new RosterBuilder(findings)

  for (const [index, anchor] of anchors.entries()) {
    const primary = index === 0
    const nearest = await nearestForgeJson(anchor, files)
    const project = nearest && (await load(nearest.path, nearest.read))
    if (project) {
      // The global layer is one file: reached through every anchor, it materializes once, under the primary root pool.
      const globals = primary ? (global?.agents.map((entry) => ({ entry, source: global.file })) ?? []) : []
      const entries = [...globals, ...ownEntries(project)]
      // Project over global per id, wholesale: a Map keeps the first position and the last definition.
      const merged = [...new Map(entries.map((item) => [item.entry.id, item])).values()]
      roster.admit({ file: project.file, anchor, origin: "project", primary, ns: primary ? undefined : namespaceOf(project), entries: merged })
    } else if (primary && !nearest && global && !seen.has(global.file)) {
      seen.add(global.file)
      roster.admit({ file: global.file, anchor, origin: "global", primary, entries: ownEntries(global) })
    }
    for (const written of await scanForSubPools(anchor, files, scanBudget, findings)) {
      const read = await files.read(written)
      if (read.kind === "missing") continue
      const sub = await load(written, read)
      if (sub) roster.admit({ file: sub.file, anchor, origin: "sub", primary: false, ns: namespaceOf(sub), entries: ownEntries(sub) })
    }
  }

  const uncovered: string[] = []
  for (const probe of options.probes ?? []) {
    const nearest = await nearestForgeJson(probe, files)
    const file = nearest && (await files.realpath(nearest.path))
    if (file !== undefined && !seen.has(file) && !uncovered.includes(file)) uncovered.push(file)
  }
  return { pools: roster.pools, workers: roster.pools.flatMap((pool) => pool.agents), findings, uncovered }
}

/**
 * A pool's namespace when it is not the primary root: its file's `pool` field, else the name of the folder holding
 * `.opencode/`, lowercased, every run of other characters turned into one '-', trimmed, at most 24 characters.
 */
export function poolNamespaceFromDirectory(directory: string): string {
  const name = path
    .basename(directory)
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/-+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 24)
    .replace(/-$/, "")
  // The filesystem root, or a name with no letter or digit in it.
  return name === "" ? "pool" : name
}

/** Admits pools in the order they are met: the first holder of a namespace or an agent name keeps it. */
class RosterBuilder {
  readonly pools: WorkerPool[] = []
  readonly #namespaces = new Map<string, string>()
  readonly #names = new Map<string, string>()

  constructor(private readonly findings: WorkerFinding[]) {}

  admit(candidate: Candidate): void {
    const { file, ns } = candidate
    if (ns !== undefined) {
      const holder = this.#namespaces.get(ns)
      if (holder !== undefined) {
        const what = `pool namespace "${ns}" is already taken by ${holder}; none of this file's agents are materialized (give one of the two files a distinct "pool" name)`
        this.findings.push(workerError(file, what))
        return
      }
      this.#namespaces.set(ns, file)
    }
    const agents: MaterializedWorker[] = []
    for (const { entry, source } of candidate.entries) {
      const agentId = ns === undefined ? `forge-${entry.id}` : `forge-${ns}-${entry.id}`
      const holder = this.#names.get(agentId)
      if (holder !== undefined) {
        this.findings.push(workerError(source, `agent "${entry.id}" would materialize as ${agentId}, which ${holder} already defines; it is not materialized`))
        continue
      }
      this.#names.set(agentId, source)
      agents.push({ agentId, entry, pool: file, source })
    }
    this.pools.push({
      file,
      anchor: candidate.anchor,
      origin: candidate.origin,
      primary: candidate.primary,
      ...(ns === undefined ? {} : { ns }),
      agents,
    })
  }
}

function loadFile(file: string, read: ForgeJsonRead, findings: WorkerFinding[]): LoadedFile {
  if (read.kind === "missing") return { file, agents: [] }
  if (read.kind === "error") {
    findings.push(workerError(file, `could not be read (${read.error}); its agents do not apply`))
    return { file, agents: [] }
  }
  const parsed = parseForgeJson(read.text, file)
  findings.push(...parsed.findings)
  return { file, agents: parsed.agents, ...(parsed.pool === undefined ? {} : { pool: parsed.pool }) }
}

function ownEntries(loaded: LoadedFile): { entry: WorkerEntry; source: string }[] {
  return loaded.agents.map((entry) => ({ entry, source: loaded.file }))
}

function namespaceOf(loaded: LoadedFile): string {
  return loaded.pool ?? poolNamespaceFromDirectory(path.dirname(path.dirname(loaded.file)))
}

/** The first `.opencode/forge.json` that exists from `dir` up to the root (a file that cannot be read counts too). */
async function nearestForgeJson(dir: string, files: ForgeJsonFiles): Promise<{ path: string; read: ForgeJsonRead } | undefined> {
  for (let current = dir; ; current = path.dirname(current)) {
    const candidate = path.join(current, CONFIG_DIR, FILE_NAME)
    const read = await files.read(candidate)
    if (read.kind !== "missing") return { path: candidate, read }
    if (path.dirname(current) === current) return undefined
  }
}

/**
 * The candidate sub-pool files below `anchor`, breadth first, siblings in code-unit order (the same on every
 * platform and locale). Only folders that hold a `.opencode/` folder yield a candidate; at most `budget` folders are
 * listed (the anchor included), and a scan cut short says so.
 */
async function scanForSubPools(anchor: string, files: ForgeJsonFiles, budget: number, findings: WorkerFinding[]): Promise<string[]> {
  const queue = [anchor]
  const found: string[] = []
  let next = 0
  // Folders are listed a batch at a time (the listings overlap; opencode's start waits for this scan), and taken in
  // queue order, so the order — and which folders the budget reaches — is the same as one at a time.
  while (next < queue.length && next < budget) {
    const batch = queue.slice(next, Math.min(next + SCAN_BATCH, budget))
    const listings = await Promise.all(batch.map((dir) => files.subdirectories(dir)))
    next += batch.length
    listings.forEach((listing, i) => {
      const dir = batch[i] as string
      const names = listing.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      if (names.includes(CONFIG_DIR)) found.push(path.join(dir, CONFIG_DIR, FILE_NAME))
      for (const name of names) if (!name.startsWith(".") && !SCAN_SKIPPED_DIRECTORIES.has(name)) queue.push(path.join(dir, name))
    })
  }
  if (next < queue.length)
    findings.push(workerWarning(anchor, `the sub-pool scan stopped after ${budget} folders; a forge.json deeper below this anchor is not discovered`))
  return found
}
