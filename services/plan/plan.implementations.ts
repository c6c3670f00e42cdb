import type { PlanDocumentChange, PlanEvent, PlanMachine } from "../../machines/plan/plan.machine"
import type { EffectArgs, Implementations } from "../lifecycle/lifecycle.definition"
import type { Clock } from "../lifecycle/lifecycle.ports"
import { appendNarrative, tickTask, withFrontmatter } from "./plan.document"
import type { PlanFiles } from "./plan.ports"

// The plan machine's effects, supplied by the harness: one document write per step that changes what the document
// says. The host awaits it before the step is committed, so a failed write leaves plan, database and file as they were.

export interface PlanImplementationDeps {
  files: PlanFiles
  clock: Clock
}

export function createPlanImplementations(deps: PlanImplementationDeps) {
  const iso = () => new Date(deps.clock.now()).toISOString()
  /**
   * The new text of the document for one change, from the file as it is now (read through `current`, which keeps
   * the stamp the write compares with).
   */
  const render = async (
    { context, event }: EffectArgs<PlanMachine>,
    change: PlanDocumentChange,
    current: (planPath: string) => Promise<string>,
  ): Promise<string> => {
    const { planPath } = context
    const at = iso()
    switch (change) {
      case "created":
        return (event as { input: { document: string } }).input.document
      case "revised":
        return (event as Extract<PlanEvent, { type: "plan.revise" }>).document
      case "approved":
        return withFrontmatter(await current(planPath), planPath, { status: "approved", updated: at })
      case "ticked": {
        const { task } = event as Extract<PlanEvent, { type: "plan.tick" }>
        return withFrontmatter(tickTask(await current(planPath), planPath, task, at), planPath, { updated: at })
      }
      case "closed": {
        const closed = appendNarrative(await current(planPath), { at, kind: "closed", results: context.pendingChecks ?? [] })
        return withFrontmatter(closed, planPath, { status: "done", updated: at })
      }
      case "abandoned": {
        const reason = context.reason ?? undefined
        return withFrontmatter(appendNarrative(await current(planPath), { at, kind: "abandoned", reason }), planPath, { status: "abandoned", updated: at })
      }
      case "superseded": {
        const { reason, successor } = context
        const narrated = appendNarrative(await current(planPath), { at, kind: "superseded", reason: reason ?? undefined, successor: successor ?? "" })
        return withFrontmatter(narrated, planPath, { status: "superseded", successor: successor ?? "", updated: at })
      }
      case "bound":
        return withFrontmatter(await current(planPath), planPath, { session: context.sessionId ?? undefined })
    }
  }
  return {
    actions: {
      writeDocument: async (args: EffectArgs<PlanMachine>, { change }: { change: PlanDocumentChange }) => {
        // The write is a compare-and-swap on the document as read: a change made in between (an editor, a program
        // outside Forge's database lock) is never overwritten. A change rendered without reading writes as it is.
        let readStamp: string | undefined
        const current = async (planPath: string): Promise<string> => {
          readStamp = deps.files.stamp(planPath)
          const text = await deps.files.read(planPath)
          if (text === undefined) throw new Error(`plan document ${planPath} is missing`)
          return text
        }
        const text = await render(args, change, current)
        await deps.files.write(args.context.planPath, text, readStamp)
      },
    },
  } satisfies Implementations<PlanMachine>
}
