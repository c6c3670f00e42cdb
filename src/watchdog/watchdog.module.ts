import { watchdogFragment } from "../../adapters/opencode/watchdog/watchdog.fragment"
import type { LifecycleModule } from "../forge.module"

/** The watchdog: times every shell call that passed every gate, and kills one that hangs. */
export const watchdogModule: LifecycleModule<"watchdog"> = {
  kind: "lifecycle",
  name: "watchdog",
  toolIds: [],
  commands: [],
  fragment: (context, watchdog) => watchdogFragment(context, watchdog),
  load: async () => (await import("./watchdog.lazy")).watchdogParts,
}
