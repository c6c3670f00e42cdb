import { readFileSync, readdirSync } from "node:fs"
import path from "node:path"
import { isWriteBannedTool } from "../machines/plan/plan.gates"
import { parsePlanDocument } from "../services/plan/plan.document"
import { PLAN_DIR } from "../services/plan/plan.paths"
import type { PlanFrontmatter } from "../services/plan/plan.types"
import type { GateInput } from "./gate.stream"

// The gate without a registry: every call lists the plan folder, reads and parses every document, and picks the
// session's newest live plan by its frontmatter. Synchronous fs calls are the fastest way to read a thousand small
// files from Node, so the baseline is not slowed down by anything but the scan itself.

/** The session's live (draft or approved) plan as the folder says it is, newest `created` first. */
export function findLivePlan(workspace: string, sessionId: string): { planPath: string; frontmatter: PlanFrontmatter } | undefined {
  const dir = path.join(workspace, PLAN_DIR)
  let best: { planPath: string; frontmatter: PlanFrontmatter } | undefined
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(".md")) continue
    const planPath = `${PLAN_DIR}/${name}`
    const { frontmatter } = parsePlanDocument(readFileSync(path.join(dir, name), "utf8"), planPath)
    if (frontmatter.session !== sessionId) continue
    if (frontmatter.status !== "draft" && frontmatter.status !== "approved") continue
    if (best === undefined || frontmatter.created > best.frontmatter.created) best = { planPath, frontmatter }
  }
  return best
}

/** A `tool.execute.before` hook that scans the folder on every call and refuses write tools under a draft. */
export function createFolderScanGate(workspace: string): (input: GateInput) => Promise<void> {
  return async (input) => {
    const live = findLivePlan(workspace, input.sessionID)
    if (live?.frontmatter.status === "draft" && isWriteBannedTool(input.tool)) {
      throw new Error(`${input.tool} is banned while ${live.planPath} is a draft: ask the user to approve it first.`)
    }
  }
}
