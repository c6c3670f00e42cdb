import type { CrewRosterSource } from "../../../services/crew/crew.ports"
import type { FrozenThought } from "../../../services/workers/thought.freeze"
import type { ThoughtModelFacts } from "../../../services/workers/thought.level"
import type { WorkerAgentConfig } from "../../../services/workers/worker.agent"

/** The forge.json workers as the plugin's hooks see them (built in src/workers/workers.lazy.ts, loaded at the first config build). */
export interface HostWorkersHandle extends CrewRosterSource {
  /**
   * Reads the pool files as they are now and gives the forge-* agents to materialize (agent id → entry), logging the
   * files' findings. A real materialization: the config hook calls it.
   */
  materialize(): Promise<Map<string, WorkerAgentConfig>>
  /**
   * The request options a worker session's pinned thoughtLevel adds for its model: looked up in the pool files as
   * they are at the session's first request and frozen there (`first` marks that request).
   */
  thoughtFor(sessionId: string, agentId: string, model: ThoughtModelFacts): Promise<FrozenThought>
  /** A deleted session's frozen depth goes. */
  forget(sessionId: string): void
}
