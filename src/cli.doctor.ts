import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { findBwrap, probeBwrap } from "../adapters/sandbox/bwrap.probe"
import { inspectDatabaseFiles } from "../adapters/storage/database.health"
import { databasePath } from "../adapters/storage/database.path"
import { openLifecycleStore } from "../adapters/storage/lifecycle.store"
import { FsForgeJsonFiles } from "../adapters/workspace/forge.json.files"
import { formatWorkerFinding } from "../services/workers/worker.findings"
import { resolveWorkerPools } from "../services/workers/worker.pools"
import type { DoctorCheck } from "./cli.doctor.check"
import { configCheck } from "./cli.doctor.config"
import { pluginCheck } from "./cli.doctor.plugin"

// `forgecharts doctor`: what could keep Forge from working here, each check with its verdict. A failing check makes
// the command exit 1; a warning says what will not work and how to get it working.

/** The opencode release Forge is built and tested against (the pinned `opencode-ai`). */
export const SUPPORTED_OPENCODE = "1.18.33"

/** What a terminal hears of the checks: each one's name as it starts, each verdict as it ends. */
export interface DoctorObserver {
  starting?: (name: DoctorCheck["check"]) => void
  seen?: (check: DoctorCheck) => void
}

/** Every check, in order, each announced to the observer as it starts and handed to it as it ends. */
export async function doctorChecks(workspace: string, observer: DoctorObserver = {}): Promise<DoctorCheck[]> {
  const runs: [DoctorCheck["check"], () => DoctorCheck | Promise<DoctorCheck>][] = [
    ["opencode", opencodeCheck],
    ["plugin", pluginCheck],
    ["config", () => configCheck(workspace)],
    ["sandbox", sandboxCheck],
    ["database", () => databaseCheck(workspace)],
    ["forge.json", () => forgeJsonCheck(workspace)],
  ]
  const checks: DoctorCheck[] = []
  for (const [name, run] of runs) {
    observer.starting?.(name)
    const check = await run()
    checks.push(check)
    observer.seen?.(check)
  }
  return checks
}

export function doctorLine({ check, verdict, detail }: DoctorCheck): string {
  return `${verdict.padEnd(4)}  ${check}: ${detail}`
}

async function opencodeCheck(): Promise<DoctorCheck> {
  const result = spawnSync("opencode", ["--version"], { encoding: "utf8", timeout: 15_000 })
  if (result.error !== undefined) {
    const missing = (result.error as NodeJS.ErrnoException).code === "ENOENT"
    return {
      check: "opencode",
      verdict: "warn",
      detail: missing
        ? `no opencode on PATH; Forge runs in opencode ${SUPPORTED_OPENCODE} (npm install -g opencode-ai@${SUPPORTED_OPENCODE})`
        : `opencode --version failed: ${result.error.message}`,
    }
  }
  const version = result.stdout.trim().split(/\s+/).at(-1) ?? ""
  if (version === SUPPORTED_OPENCODE) return { check: "opencode", verdict: "ok", detail: `opencode ${version}, the release Forge supports` }
  return {
    check: "opencode",
    verdict: "warn",
    detail: `opencode ${version || "(no version printed)"} here; Forge is built and tested against ${SUPPORTED_OPENCODE} (npm install -g opencode-ai@${SUPPORTED_OPENCODE})`,
  }
}

async function sandboxCheck(): Promise<DoctorCheck> {
  const bwrap = findBwrap()
  const problem = await probeBwrap(bwrap)
  if (problem === null) return { check: "sandbox", verdict: "ok", detail: `bubblewrap starts here (${bwrap})` }
  return {
    check: "sandbox",
    verdict: "warn",
    detail: `${problem}: loop_start and goal audits refuse until bubblewrap works (apt install bubblewrap) or the plugin option loop.sandbox is "off"`,
  }
}

async function databaseCheck(workspace: string): Promise<DoctorCheck> {
  const file = databasePath(workspace)
  if (!existsSync(file)) return { check: "database", verdict: "ok", detail: `none yet in ${workspace}: Forge has not run here` }
  const signals = await inspectDatabaseFiles(file)
  if (signals.fatal !== undefined)
    return { check: "database", verdict: "fail", detail: `${signals.fatal.text} (move ${signals.fatal.path} aside; Forge starts a new one)` }
  let store: Awaited<ReturnType<typeof openLifecycleStore>>
  try {
    store = await openLifecycleStore(workspace)
  } catch (error) {
    return { check: "database", verdict: "fail", detail: `${file} cannot be opened: ${error instanceof Error ? error.message : String(error)}` }
  }
  try {
    const damaged: string[] = []
    const rows = await store.repository.loadSnapshots({ includeTerminal: true, onDamaged: (d) => damaged.push(`${d.machineId} ${d.instanceId}`) })
    const live = rows.filter((row) => !row.terminal).length
    const notes = signals.notes.filter((note) => note.level === "warn").map((note) => note.text)
    if (damaged.length > 0) notes.push(`${damaged.length} record(s) cannot be read: ${damaged.slice(0, 5).join(", ")}`)
    const counted = `${file}: ${rows.length} lifecycle instance(s), ${live} live`
    return notes.length === 0
      ? { check: "database", verdict: "ok", detail: counted }
      : { check: "database", verdict: "warn", detail: `${counted}; ${notes.join("; ")}` }
  } finally {
    await store.close()
  }
}

async function forgeJsonCheck(workspace: string): Promise<DoctorCheck> {
  const roster = await resolveWorkerPools({ anchors: [workspace], files: new FsForgeJsonFiles() })
  const workers = `${roster.workers.length} worker(s) in ${roster.pools.length} pool(s)`
  if (roster.findings.length === 0) return { check: "forge.json", verdict: "ok", detail: workers }
  const errors = roster.findings.some((finding) => finding.level === "error")
  return { check: "forge.json", verdict: errors ? "fail" : "warn", detail: `${workers}; ${roster.findings.map(formatWorkerFinding).join("; ")}` }
}
