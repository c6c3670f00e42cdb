import { MAX_SURVIVORS } from "../../../machines/job/job.gates"
import type { JobInput } from "../../../machines/job/job.machine"

// The one job the job machine's unit tests start from: a foreground dev server with a success pattern.

export const JOB_T0 = 1_700_000_000_000

export const jobInput: JobInput = {
  jobId: "job_1",
  sessionId: "ses_1",
  command: "npm run dev",
  cwd: "/work/app",
  logFile: "/tmp/forge/jobs/job_1.log",
  idleMs: 60_000,
  maxWaitMs: 120_000,
  hasPattern: true,
  keepAlive: true,
  background: false,
  notify: true,
  survive: false,
  host: { pid: 100, startedAt: JOB_T0 - 1_000, instance: "a" },
  // No survive job runs yet: the birth gate admits it.
  birth: { liveSurvivors: 0, maxSurvivors: MAX_SURVIVORS },
}
