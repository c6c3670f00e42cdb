import type { LoopSectionPlan } from "../../machines/loop/loop.gates"
import type { LoopSessions } from "./loop.ports"

// loop_start {mode: "new-session"}: a plan launched in one fresh session of the forge agent, to be carried out there
// as a whole, with no worktree and no loop (nothing tracks it; the session is the user's like any other).

/** The tag that starts a launched plan's brief (the TUI shows Forge's notice of it, not the brief). */
export const LAUNCH_BRIEF_TAG = "[forge:plan-launch]"

export interface LaunchedPlan {
  title: string
  /** The plan document, or null for a plan given inline. */
  planPath: string | null
  /** The plan's text without its frontmatter. */
  body: string
  sections: readonly LoopSectionPlan[]
}

/** Opens the session, briefs it with the plan, and says where it runs. */
export async function launchPlan(sessions: LoopSessions, plan: LaunchedPlan): Promise<string> {
  const session = await sessions.open(`Plan · ${plan.title}`)
  await sessions.send(session, launchBriefText(plan))
  return [
    `Plan ${plan.title} launched in a new session (${session}): ${plan.sections.length} section${plan.sections.length === 1 ? "" : "s"}, carried out there in this workspace, with no worktree and no loop.`,
    "loop_status and loop_cancel do not track it: open that session to follow it.",
  ].join("\n")
}

export function launchBriefText(plan: LaunchedPlan): string {
  return [
    `${LAUNCH_BRIEF_TAG} Carry out the plan "${plan.title}"${plan.planPath === null ? " (given inline)" : ` (${plan.planPath}, approved)`} in this workspace, section by section.`,
    "Work directly in the project (there is no worktree and no loop: nobody audits this session). Run the checks the plan names, and end with what you did, what you checked and what is left.",
    "",
    ...plan.sections.map((s, i) => `Section ${i + 1}: ${s.title}\n\n${s.content}\n`),
    "The whole plan as written:",
    "",
    plan.body.trim(),
  ].join("\n")
}
