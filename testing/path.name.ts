/** A short test name for a generated path: the state reached and the events that reach it (a path's own description
 * repeats the whole context). */
export function pathName(value: unknown, steps: readonly { event: { type: string } }[]): string {
  const events = steps.slice(1).map(({ event: { type, ...payload } }) => (Object.keys(payload).length ? `${type} ${JSON.stringify(payload)}` : type))
  return `${JSON.stringify(value)} via ${events.join(" → ") || "(initial)"}`
}
