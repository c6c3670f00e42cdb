// Which containment a host uses for its jobs, decided once per process (per perl) at the first spawn: the subreaper
// shim when perl can set PR_SET_CHILD_SUBREAPER here, else the environment markers alone (the fallback, which a
// descendant that clears its environment escapes).
import { spawn } from "node:child_process"
import type { Readable } from "node:stream"
import { withoutMarkers } from "./job.markers"
import { readLines, shimSpec } from "./job.shim"
import { SHIM_SCRIPT } from "./shim.script"

/** `auto`: the shim where it works; `markers`: the environment markers only (the fallback, forced). */
export type ContainmentChoice = "auto" | "markers"

export interface Containment {
  /** Whether jobs run under the subreaper shim. */
  shim: boolean
  /** What the ledger and the job say, e.g. "subreaper (perl prctl)" or "environment marker only (<reason>)". */
  label: string
}

export const SUBREAPER_LABEL = "subreaper (perl prctl)"
export const DEFAULT_PERL = "perl"
const PROBE_TIMEOUT_MS = 10_000

export function markerOnly(reason: string): Containment {
  return { shim: false, label: `environment marker only (${reason})` }
}

const decisions = new Map<string, Promise<Containment>>()

/** The containment of this process's jobs; the probe runs once per perl and its answer is kept. */
export function decideContainment(choice: ContainmentChoice = "auto", perl: string = DEFAULT_PERL): Promise<Containment> {
  if (choice === "markers") return Promise.resolve(markerOnly("forced by the host"))
  let decision = decisions.get(perl)
  if (decision === undefined) {
    decision = probe(perl)
    decisions.set(perl, decision)
  }
  return decision
}

function probe(perl: string): Promise<Containment> {
  if (process.platform !== "linux") return Promise.resolve(markerOnly(`no child subreaper on ${process.platform}`))
  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>
    try {
      child = spawn(perl, ["-e", SHIM_SCRIPT], {
        env: { ...withoutMarkers(process.env), FORGE_SHIM_SPEC: shimSpec(["probe"]) },
        stdio: ["ignore", "pipe", "ignore"],
      })
    } catch (error) {
      resolve(markerOnly(`cannot run ${perl}: ${(error as Error).message}`))
      return
    }
    let answer: Containment | undefined
    const done = (containment: Containment) => {
      if (answer !== undefined) return
      answer = containment
      clearTimeout(timer)
      resolve(containment)
    }
    const timer = setTimeout(() => {
      done(markerOnly(`the perl probe did not answer within ${PROBE_TIMEOUT_MS / 1000} s`))
      child.kill("SIGKILL")
    }, PROBE_TIMEOUT_MS)
    timer.unref?.()
    child.once("error", (error) => done(markerOnly(`cannot run ${perl}: ${error.message}`)))
    readLines(
      child.stdout as Readable | null,
      (line) => {
        if (line === "ready") done({ shim: true, label: SUBREAPER_LABEL })
        else if (line.startsWith("fail ")) done(markerOnly(line.slice("fail ".length)))
      },
      // An error event may come after the pipe closed: let it name the cause first.
      () => setTimeout(() => done(markerOnly(`${perl} ended without answering the probe`)), 50),
    )
  })
}
