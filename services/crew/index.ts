// Public surface of the crew lifecycle: the service (crew_begin, crew_close, dispatch belts), its lifecycle on the one
// host, the effects its machine declares, and the ports a harness provides.
export { CrewService, NoCrewError, type CrewBeginRequest, type CrewOutcome, type CrewServiceDeps } from "./crew.service"
export { defineCrewLifecycle, type CrewSnapshot } from "./crew.lifecycle"
export { createCrewImplementations, type CrewImplementationDeps } from "./crew.implementations"
export { restoreCrews } from "./crew.restore"
export { runCrewCommand, type CrewCommandTurn } from "./crew.command"
export type { CrewFiles, CrewGovernance, CrewRoster, CrewRosterSource } from "./crew.ports"
