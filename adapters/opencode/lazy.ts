// A value built on first use. The plugin's heavy half (database, machines, services) loads only when a lifecycle is
// touched, so opencode's start-up pays for tool definitions and hook shells alone.

export interface Lazy<T> {
  /** Builds the value once (a failed build is tried again at the next call). */
  get(): Promise<T>
  /** The value if it was built already; never builds it. */
  current(): T | undefined
}

export function lazy<T>(build: () => Promise<T>): Lazy<T> {
  let pending: Promise<T> | undefined
  let built: { value: T } | undefined
  return {
    get: () =>
      (pending ??= build().then(
        (value) => {
          built = { value }
          return value
        },
        (error: unknown) => {
          pending = undefined
          throw error
        },
      )),
    current: () => built?.value,
  }
}

/** A value that is there from the start (tests and embedders that build everything eagerly). */
export function ready<T>(value: T): Lazy<T> {
  return { get: async () => value, current: () => value }
}

/** A part of a lazy value, built with it (`current()` still never builds anything). */
export function mapLazy<T, U>(source: Lazy<T>, part: (value: T) => U): Lazy<U> {
  return {
    get: async () => part(await source.get()),
    current: () => {
      const value = source.current()
      return value === undefined ? undefined : part(value)
    },
  }
}
