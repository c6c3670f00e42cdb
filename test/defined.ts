/** The value, or a failure naming what was missing: a test's stand-in for a non-null assertion (`x!`). */
export function defined<T>(value: T | null | undefined, what: string): T {
  if (value === undefined || value === null) throw new Error(`expected ${what}, got ${value}`)
  return value
}
