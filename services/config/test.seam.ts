// Reads one test-only seam: a wait in ms that an end-to-end test lowers through the process environment. The
// composition root reads the environment and passes it in; services never read process.env themselves.

/** The process environment as the composition root hands it over. */
export type SeamEnvironment = Readonly<Record<string, string | undefined>>

/**
 * The seam's value, or undefined when it is unset or empty. A value that is not an integer of at least `minMs` is
 * ignored, and one sentence saying so goes to `fallbacks` for the caller to log.
 */
export function readTestSeam(env: SeamEnvironment, name: string, minMs: number, fallbacks: string[]): number | undefined {
  const raw = env[name]
  if (raw === undefined || raw === "") return undefined
  // Digits only: Number() would also take " " (as 0), "1e3" or "0x10", which no one writes for a wait in ms.
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN
  if (Number.isSafeInteger(value) && value >= minMs) return value
  fallbacks.push(`${name}=${JSON.stringify(raw)} is not an integer of at least ${minMs} ms; ignored`)
  return undefined
}
