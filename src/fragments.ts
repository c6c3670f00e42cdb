import { crewFragment } from "../adapters/opencode/crew/crew.fragment"
import type { HostCrewsHandle } from "../adapters/opencode/crew/crew.handle"
import { completionFragment } from "../adapters/opencode/completion.fragment"
import { fileFragment } from "../adapters/opencode/file/file.fragment"
import type { HostFilesHandle } from "../adapters/opencode/file/file.handle"
import type { ForgeFragment, FragmentContext } from "../adapters/opencode/forge.fragment"
import { goalFragment } from "../adapters/opencode/goal/goal.fragment"
import type { HostGoalsHandle } from "../adapters/opencode/goal/goal.handle"
import { jobFragment } from "../adapters/opencode/job/job.fragment"
import { loopFragment } from "../adapters/opencode/loop/loop.fragment"
import type { HostLoopsHandle } from "../adapters/opencode/loop/loop.handle"
import { partitionFragment } from "../adapters/opencode/partition.fragment"
import type { Lazy } from "../adapters/opencode/lazy"
import { planFragment } from "../adapters/opencode/plan/plan.fragment"
import { watchdogFragment } from "../adapters/opencode/watchdog/watchdog.fragment"
import { workerFragment } from "../adapters/opencode/worker/worker.fragment"
import type { HostWorkersHandle } from "../adapters/opencode/worker/worker.handle"
import type { Completions } from "../services/completion/completion"
import type { JobSupervisor } from "../services/job/job.supervisor"
import type { LifecycleRepository } from "../services/lifecycle/lifecycle.ports"
import type { WatchdogService } from "../services/watchdog/watchdog.service"

// The lifecycles' fragments, in the order their hooks run: the agent partition's belts first, then the forge.json workers (materialized at each config build), then the jobs' belt (a builtin shell call of the forge
// agent is pointed to forge_shell), then the plan's write-ban, then the goal's loop, then the crew's pending belt on task calls, then the loop audit's write-ban, then the watchdog, which times only calls every gate
// passed. This file is part of what opencode loads at start: it imports tool definitions and hook shells, never the
// services behind them, which arrive lazily (src/composition.ts).

export interface ForgeLifecycles {
  /** The workspace database's lifecycle records (its stand-in's when the file cannot be used), for restore steps. */
  repository: () => Promise<LifecycleRepository | undefined>
  /** The job supervisor of this host process, built on first use. */
  jobs: Lazy<JobSupervisor>
  /** The interpreter family forge_shell runs commands under, named in its description. */
  shellFamily: string
  /** The goal harness of this workspace, built on first use (a harness without it has no goal surface). */
  goals?: Lazy<HostGoalsHandle>
  /** The crew harness of this workspace, built on first use (a harness without it has no crew surface). */
  crews?: Lazy<HostCrewsHandle>
  /** The loop harness of this workspace, built on first use (a harness without it has no loop surface). */
  loops?: Lazy<HostLoopsHandle>
  /** The forge file tools, built on first use, confined to `workspace` (a harness without them has no file tools). */
  files?: { handle: Lazy<HostFilesHandle>; workspace: string }
  /** attempt_completion's service, built on first use (a harness without it has no attempt_completion). */
  completions?: Lazy<Completions>
  /** The forge.json workers of this host, read at every config build (a harness without them materializes none). */
  workers?: Lazy<HostWorkersHandle>
  /** The hang watchdog, built on the first watched call; undefined where the host has no /proc. */
  watchdog: Lazy<WatchdogService | undefined>
}

export function forgeFragments(lifecycles: ForgeLifecycles): (context: FragmentContext) => ForgeFragment[] {
  return (context) => [
    partitionFragment(context),
    ...(lifecycles.workers === undefined ? [] : [workerFragment(context, lifecycles.workers)]),
    jobFragment(context, { supervisor: lifecycles.jobs, shellFamily: lifecycles.shellFamily, repository: lifecycles.repository }),
    planFragment(context),
    ...(lifecycles.goals === undefined ? [] : [goalFragment(context, lifecycles.goals)]),
    ...(lifecycles.crews === undefined ? [] : [crewFragment(context, lifecycles.crews)]),
    ...(lifecycles.loops === undefined ? [] : [loopFragment(context, lifecycles.loops)]),
    ...(lifecycles.files === undefined ? [] : [fileFragment(context, lifecycles.files.handle, lifecycles.files.workspace)]),
    ...(lifecycles.completions === undefined ? [] : [completionFragment(context, lifecycles.completions)]),
    watchdogFragment(context, lifecycles.watchdog),
  ]
}
