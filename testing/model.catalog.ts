import type { crewMachine } from "../machines/crew/crew.machine"
import type { goalMachine } from "../machines/goal/goal.machine"
import type { jobMachine } from "../machines/job/job.machine"
import type { loopMachine } from "../machines/loop/loop.machine"
import type { loopPassMachine } from "../machines/loop/loop.pass.machine"
import type { planMachine } from "../machines/plan/plan.machine"
import type { watchdogMachine } from "../machines/watchdog/watchdog.machine"
import { crewModel } from "./events/crew.events"
import { goalModel } from "./events/goal.events"
import { jobModel } from "./events/job.events"
import { loopModel } from "./events/loop.events"
import { loopPassModel } from "./events/loop.pass.events"
import { planModel } from "./events/plan.events"
import { watchdogModel } from "./events/watchdog.events"
import type { ModelWorldByState } from "./model.world"

// Every machine's model world with its defaults, by machine id (machines/index.ts machineCatalog): the inputs and
// the events the world can send, given a state, that Forge's model tests and `forgecharts paths` explore. A harness
// that names sessions or processes its own way builds a world with the factory's options instead.

export interface ModelWorlds {
  plan: ModelWorldByState<typeof planMachine>
  job: ModelWorldByState<typeof jobMachine>
  watchdog: ModelWorldByState<typeof watchdogMachine>
  goal: ModelWorldByState<typeof goalMachine>
  crew: ModelWorldByState<typeof crewMachine>
  loop: ModelWorldByState<typeof loopMachine>
  loopPass: ModelWorldByState<typeof loopPassMachine>
}

export const modelWorlds: ModelWorlds = {
  plan: planModel(),
  job: jobModel(),
  watchdog: watchdogModel(),
  goal: goalModel(),
  crew: crewModel(),
  loop: loopModel(),
  loopPass: loopPassModel(),
}
