// Whether the lifecycle store holds an actor as a scenario describes it: the `lifecycles` checks and a serve-mode
// turn's `until` wait ask the same question.
import type { ActorRow } from "./forge-db"
import { globMatches } from "./glob"

export interface ActorWanted {
  machine: string
  instance?: string
  state: string
  terminal?: boolean
}

/** A state also matches its nested states: "approved" matches "approved.working". */
export function stateMatches(want: string, got: string): boolean {
  return got === want || got.startsWith(`${want}.`)
}

export function describeWanted(e: ActorWanted): string {
  return `${e.machine}${e.instance ? ` ${e.instance}` : ""} is ${e.state}${e.terminal === undefined ? "" : e.terminal ? " (terminal)" : " (live)"}`
}

/** Whether some actor is as wanted, and what was found instead. */
export function matchActor(e: ActorWanted, actors: readonly ActorRow[], exists: boolean): { ok: boolean; detail: string } {
  const candidates = actors.filter((a) => a.machine === e.machine && (e.instance === undefined || globMatches(e.instance, a.instance)))
  const ok = candidates.some((a) => stateMatches(e.state, a.state) && (e.terminal === undefined || a.terminal === e.terminal))
  const detail = !exists
    ? "no lifecycle store (database file missing)"
    : candidates.length === 0
      ? `no ${e.machine} actor${e.instance ? ` matching ${e.instance}` : ""}`
      : `found ${candidates.map((a) => `${a.instance}=${a.state}${a.terminal ? " (terminal)" : ""}`).join(", ")}`
  return { ok, detail }
}
