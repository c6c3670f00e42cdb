import { completionModule } from "./completion/completion.module"
import { crewModule } from "./crew/crew.module"
import { filesModule } from "./files/files.module"
import type { ForgeModule } from "./forge.module"
import { goalModule } from "./goal/goal.module"
import { jobModule } from "./job/job.module"
import { loopModule } from "./loop/loop.module"
import { partitionModule } from "./partition/partition.module"
import { planModule } from "./plan/plan.module"
import { watchdogModule } from "./watchdog/watchdog.module"
import { workersModule } from "./workers/workers.module"

/**
 * Every module of the plugin, in the order their hooks run and their handles are built: the agent partition's belts
 * first, then the forge.json workers (materialized at each config build), then the jobs' belt (a builtin shell call of
 * the forge agent is pointed to forge_shell), then the plan's write-ban, then the goal's loop, then the crew's pending
 * belt on task calls, then the loop audit's write-ban, the file tools, attempt_completion, and last the watchdog,
 * which times only calls every gate passed. A module's factory may use at build time the handles of the modules
 * listed before it; a later one's only when called.
 */
export const FORGE_MODULES: readonly ForgeModule[] = [
  partitionModule,
  workersModule,
  jobModule,
  planModule,
  goalModule,
  crewModule,
  loopModule,
  filesModule,
  completionModule,
  watchdogModule,
]
