import type { WatchdogService } from "../../../services/watchdog/watchdog.service"
import type { ForgeFragment, FragmentContext } from "../forge.fragment"
import type { Lazy } from "../lazy"
import { createWatchdogHooks } from "./watchdog.hooks"

/** The hang watchdog's part of the plugin: timing the forge family's builtin shell calls. It has no tools. */
export function watchdogFragment(ctx: FragmentContext, watchdog: Lazy<WatchdogService | undefined>): ForgeFragment {
  return {
    id: "watchdog",
    toolIds: [],
    // Timing starts only for a call that passed every gate (the fragments before this one): a refused call never runs.
    hooks: createWatchdogHooks({ watchdog, agentOf: (id) => ctx.speakerOf(id) }),
    dispose: async () => watchdog.current()?.dispose(),
  }
}
