// The model-based test template, as the package exports it (forgecharts/testing): paths generated from a lifecycle's
// machine drive a service under test through a SUT adapter, every step is checked against the model, and the run
// prints the machine's transition coverage and fails below 100 %. Anyone who implements a lifecycle's ports (an adapter
// for another harness, another database) proves the adapter with the same paths Forge's own tests use. It runs
// under vitest (a peer of the consumer's, not bundled).
export { describeModel, hostLogicOf, modelStateKey, type ModelStep, type ModelSut, type ModelTest } from "./model.template"
export { TransitionCoverage, type CoverageReport } from "./model.coverage"
