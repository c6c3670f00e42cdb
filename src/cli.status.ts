import { existsSync } from "node:fs"
import { driverLineText } from "../machines/driver.claim"
import { jobDriverLineText } from "../machines/job/job.gates"
import { isSameProcessAt } from "../adapters/process/job.hosts"
import { isIdentityAlive } from "../adapters/process/process.identity"
import { findBwrap, probeBwrap } from "../adapters/sandbox/bwrap.probe"
import { databasePath } from "../adapters/storage/database.path"
import { inspectLifecycleRecords } from "../adapters/storage/status.records"

// `forgecharts status`: whether the sandbox starts here, then every lifecycle instance of a workspace with who drives
// the live ones, read from its database without opencode running. One report, printed as lines or as JSON.

export interface StatusReport {
  sandbox: { starts: boolean; bwrap: string | null; problem: string | null }
  workspace: string
  /** The workspace's database; null when Forge has not run there (inspection never creates one). */
  database: string | null
  instances: StatusInstance[]
  /** Rows that cannot be read, with why. */
  damaged: { machine: string; instance: string; problem: string }[]
}

export interface StatusInstance {
  machine: string
  state: string
  final: boolean
  instance: string
  session: string | null
  updatedAt: string
  /** Who drives a live goal, loop or job, or why nobody does; null where nothing needs a driver. */
  driver: string | null
  /** Where it stands, as its machine's record says: a plan's tasks, a goal's turns, a loop's section, a job's command. */
  detail: string | null
}

export async function statusReport(workspace: string): Promise<StatusReport> {
  const bwrap = findBwrap() ?? null
  // The probe (a bwrap process of its own) runs while the database is read: the report waits for it only at the end.
  const probing = probeBwrap(bwrap ?? undefined)
  const database = databasePath(workspace)
  const inspected = existsSync(database) ? await inspectLifecycleRecords(database) : null
  const problem = await probing
  const report: StatusReport = { sandbox: { starts: problem === null, bwrap, problem }, workspace, database: null, instances: [], damaged: [] }
  if (inspected === null) return report
  report.database = database
  const { records, damaged, claims } = inspected
  for (const d of damaged) report.damaged.push({ machine: d.machineId, instance: d.instanceId, problem: d.problem })
  const claimOf = (machineId: string, instanceId: string) => claims.find((c) => c.machineId === machineId && c.instanceId === instanceId) ?? null
  for (const row of records) {
    // A goal that runs its loop and a running loop need a driver: who it is, or why nobody drives it.
    const needsDriver = !row.terminal && ((row.machineId === "goal" && row.state.startsWith("active")) || row.machineId === "loop")
    const claim = needsDriver ? claimOf(row.machineId, row.instanceId) : null
    const driver = needsDriver
      ? driverLineText(claim, claim !== null && isIdentityAlive(claim.holder), Date.now())
      : row.machineId === "job" && !row.terminal
        ? jobDriverLine(row.snapshot)
        : null
    report.instances.push({
      machine: row.machineId,
      state: row.state,
      final: row.terminal,
      instance: row.instanceId,
      session: row.sessionId,
      updatedAt: new Date(row.updatedAt).toISOString(),
      driver,
      detail: detailOf(row.machineId, row.snapshot),
    })
  }
  return report
}

/** The report as the terminal shows it: the sandbox's line, then a line per instance (damaged rows first). */
export function statusText(report: StatusReport): string {
  const lines = [sandboxLine(report.sandbox)]
  if (report.database === null) lines.push(`no Forge database in ${report.workspace} (expected ${databasePath(report.workspace)})`)
  else if (report.instances.length === 0 && report.damaged.length === 0) lines.push("no lifecycle instances in this workspace")
  for (const d of report.damaged) lines.push(`${d.machine}\tdamaged\t${d.instance}\t${d.problem}`)
  for (const i of report.instances)
    lines.push(
      `${i.machine}\t${i.state}${i.final ? " (final)" : ""}\t${i.instance}\tsession=${i.session ?? "-"}\t${i.updatedAt}${i.detail === null ? "" : `\t${i.detail}`}${i.driver === null ? "" : `\t${i.driver}`}`,
    )
  return `${lines.join("\n")}\n`
}

/** Whether a loop's passes (and a goal's auditors) can be confined on this machine, and why not. */
function sandboxLine({ bwrap, problem }: StatusReport["sandbox"]): string {
  if (problem === null) return `loop sandbox: bubblewrap starts here (${bwrap})`
  return `loop sandbox: cannot start here: ${problem}. loop_start and goal audits (/goal … --audit) refuse until bubblewrap works (apt install bubblewrap) or the plugin option loop.sandbox is "off"`
}

/** A job is driven by the opencode process that runs it (its host, in its record) while that process runs. */
function jobDriverLine(snapshot: unknown): string {
  const host = (snapshot as { context?: { host?: { pid?: unknown; startedAt?: unknown; instance?: unknown } } } | null)?.context?.host
  const { pid, startedAt, instance } = host ?? {}
  if (typeof pid !== "number" || typeof startedAt !== "number" || typeof instance !== "string") return jobDriverLineText(null, false)
  return jobDriverLineText({ pid, instance }, isSameProcessAt(pid, startedAt))
}

type Fields = Record<string, unknown>
const fieldsOf = (value: unknown): Fields => (value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Fields) : {})
const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : [])
const numberOf = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) ? value : undefined)

/**
 * Where an instance stands, read from its record's context (a damaged or older record gives what it has): a plan's
 * ticked tasks, a goal's turns, revision and audit, a crew's subtasks, a loop's section, phase and open bugs, a job's
 * command and exit. Null for a machine it says nothing of.
 */
export function detailOf(machine: string, snapshot: unknown): string | null {
  const context = fieldsOf(fieldsOf(snapshot).context)
  if (machine === "plan") {
    const tasks = listOf(context.tasks)
    return `tasks ${tasks.filter((t) => fieldsOf(t).ticked === true).length}/${tasks.length} ticked`
  }
  if (machine === "goal") {
    const audit = fieldsOf(context.audit)
    const last = fieldsOf(audit.last)
    const bugs = listOf(audit.findings).filter((f) => fieldsOf(f).severity === "bug").length
    const audited =
      context.audit == null
        ? ""
        : `, audit ${numberOf(audit.rounds) ?? 0}${typeof last.outcome === "string" ? ` ${last.outcome}` : ""} (${bugs} bug${bugs === 1 ? "" : "s"} open)`
    return `turn ${numberOf(context.turnsUsed) ?? "?"}/${numberOf(fieldsOf(context.limits).maxTurns) ?? "?"}, revision ${numberOf(context.revision) ?? "?"}${audited}`
  }
  if (machine === "crew") return `${listOf(context.subtasks).length} subtasks`
  if (machine === "loop") {
    const sections = listOf(context.sections).length
    const bugs = listOf(context.findings).filter((f) => fieldsOf(f).severity === "bug").length
    const phase = typeof context.phase === "string" ? `, ${context.phase}` : ""
    return `section ${(numberOf(context.sectionIndex) ?? 0) + 1}/${sections}${phase}, ${bugs} bug${bugs === 1 ? "" : "s"} open`
  }
  if (machine === "job" && typeof context.command === "string") {
    const command = context.command.length > 60 ? `${context.command.slice(0, 59)}…` : context.command
    const exit = numberOf(context.exitCode)
    return `\`${command.replace(/\s+/g, " ")}\`${exit === undefined ? "" : `, exit code ${exit}`}`
  }
  return null
}
