import type { Confirm } from "../services/lifecycle/lifecycle.ports"
import type { PlanService } from "../services/plan/plan.service"

// Fills a workspace's plan folder through the real plan service: every session first works through a history of
// finished plans (done, abandoned, superseded), then writes the live plan it holds during the bench. Half the live
// plans are approved, so the gate is timed on both the draft (refusing) and the approved (permitting) path.

export interface PopulateOptions {
  /** Plan documents in the folder when done, live ones included. */
  planFiles: number
  /** Sessions, each with exactly one live plan. */
  sessions: number
}

export interface PopulatedWorkspace {
  sessions: string[]
  /** Sessions whose live plan is a draft (the write-ban holds). */
  draftSessions: Set<string>
  counts: { draft: number; approved: number; done: number; abandoned: number; superseded: number }
}

const allow: Confirm = async () => true

function planBody(title: string): string {
  return `# ${title}

## Goal
Keep the gate fast with a full plan folder.

<!-- forge-section -->
## Phase 1: Work
Do the work, then check it.

## Tasks
- [ ] 1. Make the change
- [ ] 2. Run the suite

## Acceptance Criteria
- The change is in
- The suite is green
`
}

const CHECKS = [
  { criterion: "The change is in", pass: true, evidence: "diff reviewed" },
  { criterion: "The suite is green", pass: true, evidence: "npm test passed" },
]

export function sessionIdOf(index: number): string {
  return `ses_bench_${String(index + 1).padStart(3, "0")}`
}

export async function populateWorkspace(plans: PlanService, options: PopulateOptions): Promise<PopulatedWorkspace> {
  const { planFiles, sessions: sessionCount } = options
  const terminal = planFiles - sessionCount
  if (sessionCount < 1 || terminal < 0) throw new Error(`cannot fit ${sessionCount} live session(s) into ${planFiles} plan file(s)`)
  const sessions = Array.from({ length: sessionCount }, (_, i) => sessionIdOf(i))
  const counts = { draft: 0, approved: 0, done: 0, abandoned: 0, superseded: 0 }

  // Finished plans, round-robin over the sessions so each session's history is interleaved with the others'.
  for (let i = 0; i < terminal; i++) {
    const session = sessions[i % sessionCount] as string
    await plans.write(session, planBody(`Finished plan ${i + 1} of ${session}`))
    const kind = i % 10
    if (kind < 2) {
      await plans.approve(session, allow)
      await plans.tick(session, 1)
      await plans.tick(session, 2)
      await plans.close(session, CHECKS, allow)
      counts.done++
    } else if (kind === 2) {
      await plans.discard(session, { by: "user" }, "taken over by a crew", `.opencode/crew/crew-${i + 1}.md`)
      counts.superseded++
    } else {
      if (kind === 3) await plans.approve(session, allow)
      await plans.discard(session, { by: "user" }, "no longer needed")
      counts.abandoned++
    }
  }

  // The live plans, written last so each is its session's newest document.
  const draftSessions = new Set<string>()
  for (const [i, session] of sessions.entries()) {
    await plans.write(session, planBody(`Live plan of ${session}`))
    if (i % 2 === 1) {
      await plans.approve(session, allow)
      counts.approved++
    } else {
      draftSessions.add(session)
      counts.draft++
    }
  }
  return { sessions, draftSessions, counts }
}
