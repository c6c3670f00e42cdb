import { type PersistSnapshotOptions, type StateStorage, rehydrateStore } from "@xstate/store/persist"
import * as z from "zod"
import type { JobHost } from "../../machines/job/job.machine"

// The job registry persists per host: two opencode processes on one workspace each write their
// own item, so neither overwrites what the other recorded. The next start takes over the items of hosts that died.

/** A StateStorage that can also list its items, so a start finds the items earlier hosts left. */
export interface StoreStorage extends StateStorage {
  /** Names of the stored items that start with `prefix`. */
  names(prefix: string): Promise<string[]>
}

/** `<base>@<pid>.<startedAt>.<instance>`: the item one host persists a store under. */
export function hostScopedName(base: string, host: JobHost): string {
  return `${base}@${host.pid}.${host.startedAt}.${host.instance}`
}

/** The host an item belongs to, or null for a name that is not one of `base`'s per-host items. */
export function hostOfName(base: string, name: string): JobHost | null {
  const match = /^(\d+)\.(\d+)\.([A-Za-z0-9_-]{1,32})$/.exec(name.startsWith(`${base}@`) ? name.slice(base.length + 1) : "")
  return match ? { pid: Number(match[1]), startedAt: Number(match[2]), instance: match[3] as string } : null
}

export function isSameHost(a: JobHost, b: JobHost): boolean {
  return a.pid === b.pid && a.startedAt === b.startedAt && a.instance === b.instance
}

/**
 * The per-host items of `base` whose host is gone: theirs to take over. The living hosts' items are left alone;
 * `isAlive` answers for the host's process, so the other plugin instances of a running process count as living.
 */
export async function itemsOfDeadHosts(storage: StoreStorage, base: string, self: JobHost, isAlive: (host: JobHost) => boolean): Promise<string[]> {
  const dead: string[] = []
  for (const name of await storage.names(`${base}@`)) {
    const host = hostOfName(base, name)
    if (host !== null && !isSameHost(host, self) && !isAlive(host)) dead.push(name)
  }
  return dead
}

/** How long a store gathers changes before it writes them (a burst of appends is one write). */
export const STORE_WRITE_THROTTLE_MS = 20

/**
 * The storage a host's own store writes through. Its item cannot exist yet (the name holds this process's pid and
 * start time), so the store starts hydrated — it reads nothing, and writes from its first change on.
 */
export function ownItem(storage: StoreStorage): StateStorage {
  return { getItem: () => null, setItem: (name, value) => storage.setItem(name, value), removeItem: (name) => storage.removeItem(name) }
}

/** Where one job store persists. */
export interface StoreTarget {
  storage: StateStorage
  name: string
  onError: (error: unknown) => void
  /** The host's own store starts hydrated; a dead host's item is loaded explicitly (rehydrateStore). */
  hydrated?: boolean
}

/** The persist options every job store uses: what it reads is checked against its schema, never trusted. */
export function persistOptions<TContext>(target: StoreTarget, schema: z.ZodType<TContext>): PersistSnapshotOptions<TContext> {
  return {
    name: target.name,
    storage: target.storage,
    skipHydration: target.hydrated !== true,
    throttle: STORE_WRITE_THROTTLE_MS,
    onError: target.onError,
    merge: (persisted) => schema.parse(persisted),
  }
}

/** A persisted store of one item, opened without hydrating; `onError` hears why its item did not load. */
export type OpenPersisted<TContext> = (name: string, onError: (error: unknown) => void) => { getSnapshot(): { context: TContext }; send(event: never): void }

/**
 * Start-up: loads the items of `base` whose host is gone and hands each loaded context to `adopt`; returns the items
 * taken (for the caller to remove once what they describe is claimed: another process starting at the same moment
 * reads them too) and the problems. An item that does not load is reported (which item, what is wrong) and left.
 */
export async function takeOverDeadHosts<TContext>(options: {
  storage: StoreStorage
  base: string
  self: JobHost
  isAlive: (host: JobHost) => boolean
  open: OpenPersisted<TContext>
  adopt: (context: TContext) => void
}): Promise<{ taken: string[]; problems: string[] }> {
  const problems: string[] = []
  const taken: string[] = []
  for (const name of await itemsOfDeadHosts(options.storage, options.base, options.self, options.isAlive)) {
    let failure: unknown
    const dead = options.open(name, (error) => (failure = error))
    await rehydrateStore(dead as Parameters<typeof rehydrateStore>[0])
    if (failure !== undefined) {
      problems.push(`${name}: ${failure instanceof z.ZodError ? z.prettifyError(failure) : String(failure)}; left as it was`)
      continue
    }
    options.adopt(dead.getSnapshot().context)
    taken.push(name)
  }
  return { taken, problems }
}
