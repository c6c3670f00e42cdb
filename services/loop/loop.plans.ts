import { parsePlanDocument } from "../plan/plan.document"
import type { PlanFiles } from "../plan/plan.ports"
import type { PlanService } from "../plan/plan.service"
import type { LoopPlans } from "./loop.ports"

/** The session's live plan for loop_start: its status as the plan machine holds it, its text as the document has it. */
export function loopPlansOf(plans: PlanService, files: PlanFiles): LoopPlans {
  return {
    async liveFor(sessionId) {
      const planPath = await plans.latestLiveFor(sessionId)
      if (planPath === undefined) return undefined
      const text = await files.read(planPath)
      if (text === undefined) throw new Error(`loop_start: the plan ${planPath} is missing on disk; restore it, or give the plan inline.`)
      const document = parsePlanDocument(text, planPath)
      const body = text.slice(text.length - document.body.length)
      return { planPath, status: plans.statusOf(planPath), title: document.frontmatter.title, body }
    },
  }
}
