import { passesNeeded } from "../../machines/loop/loop.gates"
import type { LoopStartInput } from "../../machines/loop/loop.machine"
import type { LoopSandbox } from "../../machines/loop/loop.sandbox"
import type { Clock } from "../lifecycle/lifecycle.ports"
import type { LoopPlans, LoopSandboxes } from "./loop.ports"
import { sectionsOfPlan } from "./loop.sections"
import { DEFAULT_LOOP_ITERATIONS } from "./loop.start.defaults"

/** loop_start's arguments after their schema. */
export interface LoopStartRequest {
  title: string
  /** A plan given inline; without it the session's live plan runs (it must be approved). */
  plan?: string
  name?: string
  maxIterations?: number
  /** `loop` (default): a loop in a worktree; `new-session`: the plan launched in one fresh session, no loop. */
  mode?: "loop" | "new-session"
}

export interface LoopBirthDeps {
  plans: LoopPlans
  sandboxes: LoopSandboxes
  clock: Clock
  /** This process, the new loop's driver. */
  me: string
  /** The running loop a session is a pass of, by name. */
  loopOf(sessionId: string): string | undefined
}

/**
 * What loop_start's birth gate decides on: the plan (the session's live one, or the one given inline), its sections and
 * the facts of the start; and the plan's text. Throws when the session has no plan and none is given.
 */
export async function loopBirthOf(deps: LoopBirthDeps, hostSession: string, request: LoopStartRequest): Promise<{ born: LoopStartInput; body: string }> {
  const plan = request.plan === undefined ? await deps.plans.liveFor(hostSession) : undefined
  if (request.plan === undefined && plan === undefined)
    throw new Error("loop_start: this session has no plan. Write and approve one (plan_write, plan_approve), or give the plan inline (plan).")
  const title = request.title.trim()
  const sections = plan === undefined ? sectionsOfPlan(request.plan ?? "", title) : sectionsOfPlan(plan.body, plan.title)
  const born: LoopStartInput = {
    loopName: "",
    title,
    hostSession,
    planPath: plan?.planPath ?? null,
    planStatus: plan?.status ?? null,
    askedFrom: deps.loopOf(hostSession) ?? null,
    worktree: { dir: "", branch: "", base: "" },
    sections,
    // By default room for every section to be done over once.
    maxIterations: request.maxIterations ?? Math.max(DEFAULT_LOOP_ITERATIONS, passesNeeded(sections.length) + sections.length),
    // A launched session is no loop's pass: no sandbox to try.
    sandbox: request.mode === "new-session" ? { mode: "off", network: true, problem: null } : await sandboxFacts(deps.sandboxes),
    startedAt: deps.clock.now(),
    driver: deps.me,
  }
  return { born, body: plan?.body ?? request.plan ?? "" }
}

/** The sandbox a new loop gets: the user's choice, and whether it starts here (tried only when it is on). */
async function sandboxFacts(sandboxes: LoopSandboxes): Promise<LoopSandbox> {
  const { mode, network } = sandboxes
  return { mode, network, problem: mode === "off" ? null : await sandboxes.problem() }
}
