import type { CrewRoster } from "../crew/crew.ports"
import { formatWorkerFinding } from "./worker.findings"
import type { MaterializedWorker, WorkerPool, WorkerRoster } from "./worker.pools"

// The roster as the crew registration and /crew show it: the dispatchable forge-* workers grouped by pool, each pool
// with its origin (the forge.json it came from), the primary marked, and the files' findings.

const ORIGIN: Record<WorkerPool["origin"], string> = { global: "global layer", project: "project", sub: "sub-pool" }

export function crewRosterOf(roster: WorkerRoster): CrewRoster {
  const pools = roster.pools.filter((pool) => pool.agents.length > 0)
  const text =
    pools.length === 0
      ? "(no forge-* workers)"
      : pools
          .map((pool) =>
            [
              `- ${pool.primary ? "primary pool" : `pool ${pool.ns ?? "?"}`} (${ORIGIN[pool.origin]}): ${pool.file}`,
              ...pool.agents.map((worker) => `  - ${worker.agentId} — ${brainOf(worker)}`),
            ].join("\n"),
          )
          .join("\n")
  return { text, dispatchable: roster.workers.length, findings: roster.findings.map(formatWorkerFinding) }
}

function brainOf({ entry }: MaterializedWorker): string {
  const brain = entry.kind === "pinned" ? `pinned: ${entry.model} at ${entry.thoughtLevel}` : "Auto: inherits the session's model"
  return `${brain}; ${entry.shape === "write" ? "writes" : "read-only"}${entry.description === undefined ? "" : `; ${entry.description}`}`
}
