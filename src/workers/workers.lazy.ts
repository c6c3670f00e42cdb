import type { HostWorkersHandle } from "../../adapters/opencode/worker/worker.handle"
import { FsForgeJsonFiles } from "../../adapters/workspace/forge.json.files"
import type { Logger } from "../../services/lifecycle/lifecycle.ports"
import { ThoughtLevelFreeze } from "../../services/workers/thought.freeze"
import { thoughtLevelInputOf, thoughtLevelParams } from "../../services/workers/thought.level"
import { workerAgentConfig } from "../../services/workers/worker.agent"
import { WorkerAnchors } from "../../services/workers/worker.anchors"
import { formatWorkerFinding } from "../../services/workers/worker.findings"
import { type WorkerRoster, resolveWorkerPools } from "../../services/workers/worker.pools"
import { crewRosterOf } from "../../services/workers/worker.roster"
import type { HostParts, SurfaceParts } from "../forge.module"

// The host's anchor set: one per opencode process, shared by every plugin initialization in it (a shared `serve`
// re-initializes the plugin for each project). The first directory is the primary anchor; the set only grows.
const hostAnchors = new WorkerAnchors()

/**
 * The forge.json workers of this host, with `directory` (the plugin's own initialization) joined to the anchor set
 * (the process's own unless given: an embedder or a test may keep one of its own).
 */
export function createHostWorkers(options: { directory: string; log: Logger; anchors?: WorkerAnchors }): HostWorkersHandle {
  const anchors = options.anchors ?? hostAnchors
  anchors.add(options.directory)
  const files = new FsForgeJsonFiles()
  const resolve = (): Promise<WorkerRoster> => resolveWorkerPools({ anchors: anchors.list(), files })
  const depths = new ThoughtLevelFreeze()
  return {
    async materialize() {
      const roster = await resolve()
      for (const finding of roster.findings) {
        if (finding.level === "error") options.log.error(formatWorkerFinding(finding))
        else options.log.warn(formatWorkerFinding(finding))
      }
      return new Map(roster.workers.map((worker) => [worker.agentId, workerAgentConfig({ ...worker.entry, agentId: worker.agentId })]))
    },
    async thoughtFor(sessionId, agentId, model) {
      // Only the first request reads the files: the depth a session started with is the one it keeps.
      const entry = depths.has(sessionId) ? undefined : (await resolve()).workers.find((worker) => worker.agentId === agentId)?.entry
      return depths.paramsFor(sessionId, () =>
        entry?.kind === "pinned" ? thoughtLevelParams(thoughtLevelInputOf(entry.thoughtLevel, model)) : { options: {} },
      )
    },
    forget: (sessionId) => depths.forget(sessionId),
    roster: async () => crewRosterOf(await resolve()),
  }
}

/** The forge.json workers' lazy part: read by the host at every config build, before any workspace opens. */
export const workersParts: SurfaceParts<"workers", HostParts> = {
  create: (parts) => createHostWorkers({ directory: parts.directory, log: parts.log }),
}
