import type { JobProcesses, MatchOutcome, OutputMatcher } from "./job.ports"
import type { LiveJob } from "./live.job"

// The success-pattern scan of a job's log. A growth event names the log's size; the scan catches up to it in bounded
// steps (each read is at most SCAN_STEP_BYTES, each match runs in the matcher's worker under its time budget), so a
// burst of output is scanned to its end even when no further output — and so no further event — ever comes. A step
// ends at a line end where it can, so a boundary cuts a line only when a line is longer than a step; a match that
// spans two steps (a multi-line pattern, or such a long line) is found through the matcher's overlap: it keeps the
// last 4 KB it scanned (from a line start) in front of the next step.

/** Bytes one step reads and hands to the matcher. */
export const SCAN_STEP_BYTES = 1024 * 1024

export type ScanOutcome = { kind: "matched" } | { kind: "no-match" } | { kind: "abandoned"; reason: string }

export interface ScanRequest {
  matcher: OutputMatcher
  /** The pattern as the model wrote it, for the abandonment reason. */
  patternText: string
  logFile: string
  /** The first byte not scanned yet. */
  from: number
  /** The log size to catch up to (what the growth event saw); later output brings its own event. */
  upTo: number
  /** Asked before every step: once it says no (the caller stopped waiting, the process ended) the scan stops. */
  isWanted: () => boolean
  /** Called after every step with the first byte not scanned yet. */
  advance: (offset: number) => void
}

export async function scanOutput(readNew: JobProcesses["readNew"], request: ScanRequest): Promise<ScanOutcome> {
  let offset = request.from
  while (offset < request.upTo && request.isWanted()) {
    const chunk = await readNew(request.logFile, offset, Math.min(SCAN_STEP_BYTES, request.upTo - offset))
    // Nothing readable yet (a character split at the end, a log cut short): the next event continues from here.
    if (chunk.nextOffset === offset) break
    const step = endAtLineEnd(chunk, offset, request.upTo)
    offset = step.nextOffset
    request.advance(offset)
    let outcome: MatchOutcome
    try {
      outcome = await request.matcher.feed(step.text)
    } catch (error) {
      return { kind: "abandoned", reason: abandonedText(request.patternText, `its matcher failed (${error instanceof Error ? error.message : String(error)})`) }
    }
    if (outcome === "match") return { kind: "matched" }
    if (outcome === "timed-out") {
      return {
        kind: "abandoned",
        reason: abandonedText(
          request.patternText,
          `one match step ran past its ${request.matcher.budgetMs} ms time budget (the pattern backtracks too much on this output; a simpler pattern, e.g. without nested quantifiers, avoids it)`,
        ),
      }
    }
  }
  return { kind: "no-match" }
}

/**
 * A step short of `upTo` ends at its last line end (when it holds one), so a step boundary never cuts a line and $
 * never matches where it did. The last step takes everything: output that ends without a newline is matched as is.
 */
function endAtLineEnd(chunk: { text: string; nextOffset: number }, from: number, upTo: number): { text: string; nextOffset: number } {
  if (chunk.nextOffset >= upTo) return chunk
  const lineEnd = chunk.text.lastIndexOf("\n")
  if (lineEnd < 0 || lineEnd === chunk.text.length - 1) return chunk
  const text = chunk.text.slice(0, lineEnd + 1)
  return { text, nextOffset: from + new TextEncoder().encode(text).length }
}

function abandonedText(pattern: string, why: string): string {
  return `success_pattern ${JSON.stringify(pattern)} was abandoned: ${why}. Matching is off for this job; the call waited for the exit, idle_ms or max_wait_ms instead.`
}

/**
 * A growth event of a live job: while its caller waits (and its pattern was not given up), the log is scanned from
 * where the last scan stopped up to `size`. A scan stops early once the caller is released or the process exited
 * (the exit is then the last word); a pattern given up is remembered on the job, for the caller's result.
 */
export async function scanJobOutput(job: LiveJob, size: number, readNew: JobProcesses["readNew"]): Promise<ScanOutcome> {
  const isWaiting = () => !job.exited && job.snapshot.value === "running"
  if (job.matcher === undefined || job.patternAbandoned !== undefined || !isWaiting()) return { kind: "no-match" }
  const outcome = await scanOutput(readNew, {
    matcher: job.matcher,
    patternText: job.patternText ?? "",
    logFile: job.snapshot.context.logFile,
    from: job.scanOffset,
    upTo: size,
    isWanted: isWaiting,
    advance: (offset) => {
      job.scanOffset = offset
    },
  })
  // A matcher closed under the scan (the job was killed or quiesced meanwhile) failed nobody: no news.
  if (outcome.kind === "abandoned" && job.matcher === undefined) return { kind: "no-match" }
  if (outcome.kind === "abandoned") job.patternAbandoned = outcome.reason
  return outcome
}
