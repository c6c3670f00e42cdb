// The model-based test template, as the package exports it (forgecharts/testing): paths generated from a lifecycle's
// machine drive a service under test through a SUT adapter, every step is checked against the model, and the run
// prints the machine's transition coverage and fails below 100 %. Anyone who implements a lifecycle's ports (an adapter
// for another harness, another database) proves the adapter with the same paths Forge's own tests use: each machine's
// model world (its inputs and the events the world can send, given a state) is here, in `modelWorlds`, and
// `modelPaths` gives its paths as plain JSON (what `forgecharts paths <machine> --json` prints). The template runs
// under vitest (a peer of the consumer's, not bundled).
export { describeModel, type ModelStep, type ModelSut, type ModelTest } from "./model.template"
export { hostLogicOf, modelStateKey } from "./model.host"
export { type ModelReplay, type ModelWorld, type ModelWorldByState, modelReplays } from "./model.world"
export { type ModelWorlds, modelWorlds } from "./model.catalog"
export { type ModelPath, type ModelPathState, type ModelPathStep, type ModelPaths, modelPathMachines, modelPaths, modelPathsOf } from "./model.paths"
export { TransitionCoverage, type CoverageReport } from "./model.coverage"
export { type CrewWorldOptions, crewModel } from "./events/crew.events"
export { type GoalWorldOptions, goalModel } from "./events/goal.events"
export { type JobWorldOptions, jobModel } from "./events/job.events"
export { loopModel } from "./events/loop.events"
export { loopPassModel } from "./events/loop.pass.events"
export { type PlanWorldOptions, planModel } from "./events/plan.events"
export { watchdogModel } from "./events/watchdog.events"
