import type { CrewMachine, CrewRecordChange } from "../../machines/crew/crew.machine"
import type { CrewStatus } from "../../machines/crew/crew.status"
import type { EffectArgs, Implementations } from "../lifecycle/lifecycle.definition"
import type { Clock } from "../lifecycle/lifecycle.ports"
import type { CrewFrontmatter } from "./crew.frontmatter"
import { appendCrewHistory, historyEntry } from "./crew.record"
import type { CrewFiles } from "./crew.ports"

// The crew machine's one effect, supplied by the harness: the record write of every transition. The host awaits it
// before the step is committed, so a failed write leaves crew, database and record as they were.

export interface CrewImplementationDeps {
  files: CrewFiles
  clock: Clock
}

const EXECUTION_AFTER: Partial<Record<CrewRecordChange, CrewFrontmatter["execution"]>> = { armed: "waves", converted: "goal" }

export function createCrewImplementations(deps: CrewImplementationDeps) {
  return {
    actions: {
      writeRecord: async ({ context, event }: EffectArgs<CrewMachine>, { change }: { change: CrewRecordChange }) => {
        const { crewPath } = context
        if (change === "created") {
          await deps.files.write(crewPath, (event as { input: { record: string } }).input.record)
          return
        }
        // A compare-and-swap on the record as read: an edit made in between is never overwritten.
        const stamp = deps.files.stamp(crewPath)
        const text = await deps.files.read(crewPath)
        // Abandoning is the way out the missing record's own error names: it ends the crew with nothing to append to.
        if (text === undefined && change === "abandoned") return
        if (text === undefined) throw new Error(`crew record ${crewPath} is missing: restore the file, or abandon the crew (crew_close with abandon: true)`)
        const at = new Date(deps.clock.now()).toISOString()
        const execution = EXECUTION_AFTER[change]
        // The status the step leads to: a step's effects run before it is committed, so it is read from the target.
        const status = change === "restored" ? undefined : STATUS_AFTER[change]
        const patch: Partial<CrewFrontmatter> = { ...(status === undefined ? {} : { status }), ...(execution === undefined ? {} : { execution }), updated: at }
        await deps.files.write(crewPath, appendCrewHistory(text, crewPath, historyEntry(change, context, at), patch), stamp)
      },
    },
  } satisfies Implementations<CrewMachine>
}

const STATUS_AFTER: Record<Exclude<CrewRecordChange, "created" | "restored">, CrewStatus> = {
  armed: "executing",
  converted: "converted",
  closed: "closed",
  abandoned: "abandoned",
}
