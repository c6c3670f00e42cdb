import { jobFragment } from "../../adapters/opencode/job/job.fragment"
import { mapLazy } from "../../adapters/opencode/lazy"
import { JOB_TOOL_IDS } from "../../machines/exec.partition"
import type { LifecycleModule } from "../forge.module"

/** Jobs: a shell that can never hang the session, its output kept, its end said to the session. */
export const jobModule: LifecycleModule<"job"> = {
  kind: "lifecycle",
  name: "job",
  toolIds: JOB_TOOL_IDS,
  commands: [],
  fragment: (context, jobs, start) =>
    jobFragment(context, {
      supervisor: mapLazy(jobs, (h) => h.supervisor),
      sandboxOf: mapLazy(jobs, (h) => (sessionId: string) => h.sandboxOf(sessionId)),
      shellFamily: start.shellFamily,
      repository: start.repository,
    }),
  load: async () => (await import("./job.lazy")).jobParts,
}
