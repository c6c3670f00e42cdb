// Timing and percentiles shared by the benches. Every call is timed on its own with the monotonic clock; a thrown
// refusal is part of the call, so it is caught inside the timed region.

export interface TimedRun {
  /** Nanoseconds per call, in stream order. */
  samples: Float64Array
  /** Whether each call was refused (threw), in stream order. */
  refused: Uint8Array
}

/**
 * Runs `calls` through `gate` once each (optionally after `warmUp` untimed calls) and times every call; `before`, when
 * given, runs untimed ahead of each timed call (e.g. another process's write the call must catch up with).
 */
export async function timeCalls<T>(
  gate: (input: T) => Promise<void>,
  calls: readonly T[],
  warmUp: readonly T[] = [],
  before?: (index: number) => Promise<void>,
): Promise<TimedRun> {
  for (const input of warmUp) await gate(input).catch(() => undefined)
  const samples = new Float64Array(calls.length)
  const refused = new Uint8Array(calls.length)
  for (let i = 0; i < calls.length; i++) {
    const input = calls[i] as T
    await before?.(i)
    let threw = 0
    const start = process.hrtime.bigint()
    try {
      await gate(input)
    } catch {
      threw = 1
    }
    const end = process.hrtime.bigint()
    samples[i] = Number(end - start)
    refused[i] = threw
  }
  return { samples, refused }
}

/** Nearest-rank percentile (p in 0..1) of nanosecond samples, in microseconds. */
export function percentileMicros(samples: Float64Array, p: number): number {
  if (samples.length === 0) throw new Error("percentile of an empty sample")
  const sorted = Float64Array.from(samples).sort()
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length)))
  return (sorted[rank - 1] as number) / 1000
}

/** A fixed-width text table: the first column left-aligned, the rest right-aligned. */
export function formatTable(rows: readonly (readonly string[])[]): string {
  const widths = rows.reduce<number[]>((w, row) => row.map((cell, i) => Math.max(w[i] ?? 0, cell.length)), [])
  return rows.map((row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join("  ")).join("\n")
}

/** Microseconds with precision that suits their size (2.41, 87.3, 41230). */
export function formatMicros(us: number): string {
  if (us < 10) return us.toFixed(2)
  if (us < 1000) return us.toFixed(1)
  return Math.round(us).toLocaleString("en-US")
}
