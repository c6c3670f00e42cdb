// Which replays of a model test are worth running. Every replay starts a fresh SUT at the machine's initial state and
// checks it after every step, and model and SUT are deterministic: a replay whose events are the start of another's
// (or the same events again) takes the very steps the longer one takes, asserts the same after each, and ends where
// the longer one goes on. Such a replay is left out; whatever it would catch, the longer one catches at the same step.

/** A replay of a model test: the events from the initial state, and the test's name. */
export interface Replay<E> {
  events: readonly E[]
  label: string
}

/**
 * The replays no other replay contains, in their order: a replay whose events are a prefix of another's, or equal to
 * an earlier one's, is dropped. Events are compared by their JSON: two events that differ only in key order count as
 * different, so such a replay stays (never dropped wrongly).
 */
export function longestReplays<E, R extends Replay<E>>(replays: readonly R[]): R[] {
  const keysOf = (events: readonly E[]): string[] => {
    const keys = [""]
    for (const event of events) keys.push(`${keys.at(-1)}${JSON.stringify(event)}\n`)
    return keys
  }
  const strictPrefixes = new Set<string>()
  for (const { events } of replays) for (const key of keysOf(events).slice(0, -1)) strictPrefixes.add(key)
  const kept = new Set<string>()
  return replays.filter(({ events }) => {
    const key = keysOf(events).at(-1) as string
    if (strictPrefixes.has(key) || kept.has(key)) return false
    kept.add(key)
    return true
  })
}
