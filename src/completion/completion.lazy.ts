import { Completions } from "../../services/completion/completion"
import type { SurfaceParts } from "../forge.module"

/** attempt_completion's lazy part: its results in the ledger, the goal's and the loop's completion gates asked. */
export const completionParts: SurfaceParts<"completion"> = {
  create: (parts) =>
    new Completions({
      store: parts.ledgers,
      clock: parts.clock,
      // Asked when a completion is attempted, by which time every module is built.
      goals: async () => parts.handle("goal").service,
      loops: async () => parts.handle("loop").service,
    }),
}
