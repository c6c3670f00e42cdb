// Host-agnostic domain logic: embed Forge's lifecycles in another harness by providing these ports
// (LifecycleRepository, Clock, PlanFiles, Logger, Confirm) with your own adapters.

export * from "./lifecycle/lifecycle.ports"
export * from "./lifecycle/actor.host"
export * from "./lifecycle/gate.refusal"
export * from "./config/forge.options"
export * from "./plan/plan.ports"
export * from "./plan/plan.paths"
export * from "./plan/plan.types"
export * from "./plan/plan.errors"
export * from "./plan/plan.document"
export * from "./plan/plan.text"
export * from "./plan/plan.report"
export * from "./plan/plan.naming"
export * from "./plan/plan.registry"
export * from "./plan/plan.sync"
export * from "./plan/plan.queries"
export * from "./plan/plan.service"
