import { readFileSync, statSync } from "node:fs"
import path from "node:path"
import type { PluginInput } from "@opencode-ai/plugin"
import type { HostLoopsHandle, ScreenLoopPlan } from "../../adapters/opencode/loop/loop.handle"
import type { HostPlansHandle } from "../../adapters/opencode/plan/plan.handle"
import { sectionsOfPlan } from "../../services/loop/loop.sections"
import { parsePlanDocument } from "../../services/plan/plan.document"
import { createLoopSessions } from "../../adapters/opencode/loop/loop.sessions"
import { GitLoopWorktrees } from "../../adapters/workspace/loop.worktrees"
import { BwrapSandboxes } from "../../adapters/sandbox/loop.sandboxes"
import { SqliteLoopReviews } from "../../adapters/storage/review.repository"
import type { LoopReviews } from "../../services/loop/loop.ports"
import type { ReviewScope } from "../../services/review/review.scope"
import type { DriverClaims } from "../../services/lifecycle/driver.claim"
import type { LifecycleHost } from "../../services/lifecycle/lifecycle.host"
import type { Clock, LifecycleRepository, Logger } from "../../services/lifecycle/lifecycle.ports"
import { restoreLive } from "../../services/lifecycle/lifecycle.restore.live"
import { defineLoopLifecycle } from "../../services/loop/loop.lifecycle"
import { loopPlanNotes } from "../../services/loop/loop.plan.notes"
import { loopPlansOf } from "../../services/loop/loop.plans"
import { LOOP_CLAIMS, LoopService } from "../../services/loop/loop.service"
import { LoopReviewService } from "../../services/loop/loop.review"
import type { PlanFiles } from "../../services/plan/plan.ports"
import type { PlanService } from "../../services/plan/plan.service"
import { loopMachine } from "../../machines/loop/loop.machine"
import { explainLoopBirthRefusal, explainLoopRefusal } from "../../machines/loop/loop.refusals"
import { createLoopImplementations } from "../../services/loop/loop.implementations"
import type { LifecycleParts } from "../forge.module"

/** The loop harness of one workspace: the service the loop tools and the passes' session events call. */
export function createHostLoops(options: {
  client: PluginInput["client"]
  log: Logger
  clock: Clock
  workspace: string
  host: LifecycleHost
  plans: PlanService
  planFiles: PlanFiles
  /** The session's live plan, for loop_start's line. */
  sessionPlan(sessionId: string): ScreenLoopPlan | undefined
  /** The workspace database's lifecycle records, for the restore. */
  repository: () => Promise<LifecycleRepository | undefined>
  /** The workspace's one driver claim (the composition's watch renews it and takes up loops whose driver ended). */
  claims: DriverClaims
  sandboxes: BwrapSandboxes
  reviews: LoopReviews
  /** Findings other lifecycles keep for their sessions (a goal's audit): the review tools go there for those. */
  reviewScopes: readonly ReviewScope[]
  /** How long a working pass's session may be silent before its loop stalls. */
  stallMs: number
}): HostLoopsHandle {
  const worktrees = new GitLoopWorktrees(options.workspace)
  const sessions = createLoopSessions(options.client)
  // The service is the effects' reporter, and the effects are the lifecycle's: the report reaches it once it exists.
  let service: LoopService | undefined
  const lifecycle = defineLoopLifecycle(options.host, {
    worktrees,
    sessions,
    reviews: options.reviews,
    clock: options.clock,
    report: (loopName, event) => service?.report(loopName, event),
    driver: options.claims.me,
    log: options.log,
  })
  service = new LoopService({
    lifecycle,
    worktrees,
    sessions,
    plans: loopPlansOf(options.plans, options.planFiles),
    sandboxes: options.sandboxes,
    stallMs: options.stallMs,
    claims: options.claims,
    clock: options.clock,
    log: options.log,
  })
  const built = service
  // The stall watch looks a few times per timeout (at most every 30 s); it never keeps the process alive.
  const stallWatch = setInterval(
    () => void built.checkSilence().catch((error: unknown) => options.log.warn(`loop stall watch: ${String(error)}`)),
    Math.min(30_000, Math.max(1_000, Math.floor(options.stallMs / 4))),
  )
  stallWatch.unref?.()
  // A loop that ended needs no driver: its claim goes at once.
  const stopObserving = lifecycle.observe((loopName, snapshot) => {
    if (!snapshot.hasTag("live"))
      options.claims
        .release(LOOP_CLAIMS, loopName)
        .catch((error: unknown) => options.log.warn(`loop ${loopName}: its driver claim could not be released: ${String(error)}`))
  })
  return {
    service: built,
    reviews: new LoopReviewService(built, options.reviews, options.clock, options.reviewScopes),
    sessionPlan: options.sessionPlan,
    sandboxOf(sessionId) {
      const confinement = built.shellConfinement(sessionId)
      return confinement === null ? null : options.sandboxes.sandboxFor(confinement)
    },
    async restore() {
      const repository = await options.repository()
      if (repository === undefined) return { restored: [], problems: [] }
      // Running loops come back from their records; resumeAll then takes their passes up.
      const report = await restoreLive(lifecycle, repository)
      await built.resumeAll()
      return report
    },
    dispose: () => {
      clearInterval(stallWatch)
      stopObserving()
    },
  }
}

/** The loop lifecycle's lazy part. */
export const loopParts: LifecycleParts<"loop"> = {
  machine: loopMachine,
  createImplementations: createLoopImplementations,
  explainRefusal: explainLoopRefusal,
  // A loop runs an approved plan with sections, started from outside any loop: the machine decides.
  explainBirthRefusal: explainLoopBirthRefusal,
  restore: { when: "after-open" },
  // One process drives a loop's passes; when it ends, another takes the loop up at its next look.
  driver: { kind: "claim", claimKind: LOOP_CLAIMS, takeOverLeft: (loops) => loops.service.takeOverLeftLoops() },
  create: (parts) => {
    const plans = parts.handle("plan")
    const loops = createHostLoops({
      client: parts.client,
      log: parts.log,
      clock: parts.clock,
      workspace: parts.workspace,
      host: parts.host,
      plans: plans.service,
      planFiles: plans.files,
      sessionPlan: (sessionId) => sessionPlanOf(parts.workspace, plans, sessionId),
      repository: parts.repository,
      claims: parts.claims,
      reviews: new SqliteLoopReviews(() => parts.database.connection()),
      reviewScopes: [parts.handle("goal").audits],
      stallMs: parts.timings.loopStallMs ?? parts.options.loop.stallMs,
      sandboxes: new BwrapSandboxes({ mode: parts.options.loop.sandbox, network: parts.options.loop.network, workspace: parts.workspace }),
    })
    // After a loop the plan stays approved with its tasks unticked: /plan says which loop ran it and what comes next.
    plans.notes.add("loop", (planPaths) => loopPlanNotes(loops.service.lifecycle, planPaths))
    return loops
  },
  close: (loops) => loops.dispose(),
}

/** A plan document larger than this is not read for a tool line (its section count is left out). */
const PLAN_LINE_READ_LIMIT = 1024 * 1024

/**
 * The session's live plan as loop_start's line shows it. The line is drawn before the call runs anything, so the
 * document is read at once: a plan is a small local file, and a larger one is not read.
 */
function sessionPlanOf(workspace: string, plans: HostPlansHandle, sessionId: string): ScreenLoopPlan | undefined {
  const planPath = plans.registry.liveFor(sessionId)
  if (planPath === undefined) return undefined
  const status = plans.service.statusOf(planPath)
  try {
    const file = path.join(workspace, planPath)
    if (statSync(file).size > PLAN_LINE_READ_LIMIT) return { planPath, status, sections: null }
    const text = readFileSync(file, "utf8")
    const document = parsePlanDocument(text, planPath)
    return { planPath, status, sections: sectionsOfPlan(text.slice(text.length - document.body.length), document.frontmatter.title).length }
  } catch {
    return { planPath, status, sections: null }
  }
}
