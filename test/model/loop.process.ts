import { SqliteDriverClaimStore } from "../../adapters/storage/driver.claim.repository"
import { SqliteLoopReviews } from "../../adapters/storage/review.repository"
import { DriverClaims } from "../../services/lifecycle/driver.claim"
import { defineLoopLifecycle } from "../../services/loop/loop.lifecycle"
import type { LoopPlans, LoopReviews, LoopSandboxes, LoopSessions, LoopWorktrees } from "../../services/loop/loop.ports"
import { LoopService } from "../../services/loop/loop.service"
import { type OpenedWorkspace, composeWorkspace } from "../../src/runtime"
import { memoryLogger } from "../integration/plan/plan.helpers"
import type { FakeClock } from "./goal.fakes"

// An opencode process of the loop SUT on the workspace: the real LoopService on the workspace's one LifecycleHost,
// with its driver claims in the workspace database every process shares; fakes only at the edges (loop.fakes.ts).

/** The id of the `n`th opencode process the SUT runs on the workspace. */
export const processId = (n: number): string => `model-process-${n}`
/** The id of a process started beside the live process that drives the loop. */
export const NEIGHBOUR_ID = "model-process-neighbour"

/** One opencode process on the workspace: the parts a restart replaces (the folder, its database and git stay). */
export interface LoopProcess {
  rt: OpenedWorkspace
  service: LoopService
  /** Its driver id. */
  id: string
  /** Its driver claims (renewed by the test where the process's driver watch would). */
  claims: DriverClaims
  /** Where its loops keep their open findings and audit history (the workspace database). */
  reviews: LoopReviews
}

/**
 * A process on the workspace: composed on the folder (its database), the loop lifecycle defined on its one host.
 */
export async function openLoopProcess(
  dir: string,
  clock: FakeClock,
  sessions: LoopSessions,
  plans: LoopPlans,
  worktrees: LoopWorktrees,
  sandboxes: LoopSandboxes,
  id: string,
  /** Which other processes still run (by default none: an earlier process of the SUT was closed before this one). */
  isAlive: (holder: string) => boolean = () => false,
): Promise<LoopProcess> {
  // As src/loop/loop.lazy.ts composes the harness on the workspace's one host, with the edges swapped for the fakes.
  const log = memoryLogger()
  const workspace = composeWorkspace({ workspace: dir, clock, log })
  // The driver claims in the workspace database every process of the SUT shares, held as this process's id.
  const opened = workspace.open()
  const claims = new DriverClaims({
    store: async () => new SqliteDriverClaimStore((await opened).connection),
    identity: { me: id, isAlive: (holder) => holder === id || isAlive(holder) },
    clock,
    log,
  })
  let service: LoopService | undefined
  const reviews = new SqliteLoopReviews(async () => (await opened).connection)
  const lifecycle = defineLoopLifecycle(workspace.host, {
    worktrees,
    sessions,
    reviews,
    clock,
    report: (loopName, event) => service?.report(loopName, event),
    driver: id,
    log,
  })
  service = new LoopService({ lifecycle, worktrees, sessions, plans, sandboxes, claims, clock, log })
  const rt = await opened
  return { rt, service, id, claims, reviews }
}
