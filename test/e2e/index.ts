// Public surface of the e2e harness for test files and other tools.
export { runScenario, type RunScenarioOptions, type ScenarioResult } from "./scenario.runner"
export { loadScenarioFile, parseScenario, scenarioFiles, ScenarioFileError } from "./scenario.loader"
export { scenarioSchema, type Scenario, type ScenarioInput } from "./scenario.schema"
export type { Check } from "./expectations"
export type { ToolResult } from "./opencode.driver"
export type { ActorRow, TransitionRow } from "./forge-db"
export type { ModelRequestRecord } from "./fake-llm"
