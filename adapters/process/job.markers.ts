// The environment markers every job process carries. They are inherited by every descendant that keeps its
// environment, `setsid` escapees included, so /proc/<pid>/environ finds those wherever they went. A descendant that
// clears it (`env -i`, sudo) is out of their reach: the job's subreaper shim (job.shim.ts) contains those; the markers
// are the fallback where no shim runs, and for a shim killed with SIGKILL.

/** `FORGE_JOB_ID=<jobId>`: which job a process belongs to. */
export const JOB_ID_VAR = "FORGE_JOB_ID"
/** `FORGE_JOB_HOST=<token>`: the host whose fence kills the process when the host dies (fenced jobs only). */
export const JOB_HOST_VAR = "FORGE_JOB_HOST"

export type EnvironmentOverrides = Record<string, string | undefined>

/**
 * A copy of `env` without the job markers, so a host that itself runs inside a job does not hand its own job's
 * markers to processes that are not part of that job.
 */
export function withoutMarkers(env: EnvironmentOverrides): Record<string, string> {
  const clean: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && name !== JOB_ID_VAR && name !== JOB_HOST_VAR) clean[name] = value
  }
  return clean
}

// A marker value goes into NUL-separated environ entries and the fence's line-based match: keep it to one plain line.
const MARKER_VALUE = /^[A-Za-z0-9._:-]{1,128}$/

/** Throws a clear error when `value` cannot serve as a marker value. */
export function assertMarkerValue(what: string, value: string): void {
  if (!MARKER_VALUE.test(value)) {
    throw new Error(`${what} "${value}" is not a valid job marker: use 1-128 characters of A-Z a-z 0-9 . _ : -`)
  }
}
