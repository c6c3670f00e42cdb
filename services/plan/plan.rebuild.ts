import type { LifecycleRepository } from "../lifecycle/lifecycle.ports"
import { parsePlanDocument } from "./plan.document"
import type { PlanFiles } from "./plan.ports"
import type { PlanRegistry } from "./plan.registry"
import type { PlanSync } from "./plan.sync"

export interface RebuildReport {
  rebuilt: string[]
  problems: { planPath: string; problem: string }[]
}

/**
 * The documents are the truth: a live plan (draft or approved, bound to a session) whose document has no record in
 * the database at all — the database was moved aside, lost its write-ahead log, or is an in-memory stand-in for one
 * that cannot be opened — is rebuilt from its document, so its draft ban holds again. A plan the database knows
 * (live, finished or damaged) is left to restore; per session the newest document wins.
 */
export async function rebuildLivePlans(deps: {
  repository: LifecycleRepository
  files: PlanFiles
  registry: PlanRegistry
  sync: PlanSync
}): Promise<RebuildReport> {
  const report: RebuildReport = { rebuilt: [], problems: [] }
  // Every plan the database holds a record of, finished ones included: only a document without one is rebuilt.
  const known = new Set(await deps.repository.instanceIds(deps.registry.lifecycle.machine.id))
  let paths: string[]
  try {
    paths = await deps.files.list()
  } catch (error) {
    report.problems.push({ planPath: ".opencode/plan", problem: `the plan folder cannot be listed (${message(error)}); no plan is rebuilt from its document` })
    return report
  }
  const candidates: { planPath: string; session: string; updated: string }[] = []
  for (const planPath of paths) {
    if (known.has(planPath) || deps.registry.snapshot(planPath) !== undefined) continue
    try {
      const text = await deps.files.read(planPath)
      if (text === undefined) continue
      const { frontmatter } = parsePlanDocument(text, planPath)
      const live = frontmatter.status === "draft" || frontmatter.status === "approved"
      if (live && frontmatter.session) candidates.push({ planPath, session: frontmatter.session, updated: frontmatter.updated })
    } catch (error) {
      // Listed as unreadable by plan_read recent and /plan; only a live document would have mattered here.
      report.problems.push({ planPath, problem: `not rebuilt: the document cannot be read (${message(error)})` })
    }
  }
  candidates.sort((a, b) => (a.updated === b.updated ? b.planPath.localeCompare(a.planPath) : b.updated.localeCompare(a.updated)))
  for (const { planPath, session } of candidates) {
    const current = deps.registry.liveFor(session)
    if (current !== undefined) {
      report.problems.push({ planPath, problem: `not rebuilt: its session ${session} already has the live plan ${current} (resume it with /plan resume)` })
      continue
    }
    try {
      await deps.sync.adopt(planPath, session)
      report.rebuilt.push(planPath)
    } catch (error) {
      report.problems.push({ planPath, problem: `not rebuilt: ${message(error)}` })
    }
  }
  return report
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
