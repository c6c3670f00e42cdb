import type { AnyStateMachine } from "xstate"
import type { EffectArgs, Implementations } from "./lifecycle.definition"
import type { Logger } from "./lifecycle.ports"

/** An action the pure step asked for, as `transition()` hands it out (nothing has run yet). */
export type RequestedEffect = { type: string; info: unknown; params: unknown }

/**
 * Runs the effects a step asked for, in order, with the harness's implementations (actions without one are the
 * machine's own, already applied by the step). "await": the first failure rejects; "start": failures are logged.
 */
export async function runEffects<TMachine extends AnyStateMachine>(
  implementations: Implementations<TMachine>,
  requested: readonly RequestedEffect[],
  mode: "await" | "start",
  log: Logger,
  machineId: string,
): Promise<void> {
  for (const action of requested) {
    const effect = implementations.actions[action.type]
    if (effect === undefined) continue
    const run = (effect as (args: EffectArgs<TMachine>, params: unknown) => void | Promise<void>)(action.info as EffectArgs<TMachine>, action.params)
    if (mode === "await") {
      await run
      continue
    }
    if (run instanceof Promise) run.catch((error: unknown) => log.warn(`${machineId}: effect ${action.type} failed: ${String(error)}`))
  }
}
