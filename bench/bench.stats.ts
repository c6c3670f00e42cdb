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

export interface MedianInterval {
  low: number
  high: number
  /** The confidence the interval carries: at least the one asked for, or less when there are too few values. */
  confidence: number
}

/**
 * A distribution-free confidence interval of the median: the order statistics x(k) and x(n + 1 − k) of the sorted
 * values, with k the largest rank whose binomial tail P(X < k), X ~ Bin(n, ½), stays within (1 − confidence) / 2.
 * It assumes nothing of the figures' distribution, which for whole opencode runs is skewed and heavy-tailed. With too
 * few values for the confidence asked (fewer than six for 95 %), it is the whole range, with the confidence that carries.
 */
export function medianInterval(values: readonly number[], confidence = 0.95): MedianInterval {
  const sorted = [...values].sort((a, b) => a - b)
  const n = sorted.length
  if (n === 0) throw new Error("median interval of an empty sample")
  const tail = (1 - confidence) / 2
  // P(X = i) built up from P(X = 0) = 2⁻ⁿ; the benches' round counts stay far below where that underflows.
  let pmf = 0.5 ** n
  let below = 0 // P(X < k)
  let k = 0
  while (k < Math.floor(n / 2) && below + pmf <= tail) {
    below += pmf
    pmf = (pmf * (n - k)) / (k + 1)
    k++
  }
  if (k === 0) return { low: sorted[0] as number, high: sorted[n - 1] as number, confidence: 1 - 2 * 0.5 ** n }
  return { low: sorted[k - 1] as number, high: sorted[n - k] as number, confidence: 1 - 2 * below }
}
