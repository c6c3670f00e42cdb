import { createStore } from "@xstate/store"
import { type StateStorage, flushStorage, persist } from "@xstate/store/persist"
import * as z from "zod"
import type { JobHost } from "../../machines/job/job.machine"
import { type StoreStorage, type StoreTarget, hostScopedName, ownItem, persistOptions, takeOverDeadHosts } from "./job.stores"

// The job registry: which jobs this host runs, whom each belongs to (a handoff moves it to the root session), and
// which final results were already delivered (a late poll hears "already consumed", even after a restart). Each job's
// lifecycle is its machine, persisted with every other lifecycle; the registry holds what is not lifecycle. It is an
// @xstate/store persisted per host, and a start takes over the registries of hosts that died.

export const JOB_REGISTRY_NAME = "forge.job-registry"
/** Delivered job ids remembered; older ones fall back to "unknown job". */
export const CONSUMED_LIMIT = 1000

export const jobRegistrationSchema = z.strictObject({
  jobId: z.string().min(1),
  /** The session the job belongs to now. */
  owner: z.string().min(1),
  survive: z.boolean(),
  /** Epoch ms. */
  registeredAt: z.int().nonnegative(),
})

export type JobRegistration = z.output<typeof jobRegistrationSchema>

const registryContextSchema = z.strictObject({
  jobs: z.record(z.string(), jobRegistrationSchema),
  consumed: z.array(z.string()),
})

type RegistryContext = z.output<typeof registryContextSchema>

function withConsumed(consumed: readonly string[], ids: readonly string[]): string[] {
  const fresh = new Set(ids)
  return [...consumed.filter((id) => !fresh.has(id)), ...fresh].slice(-CONSUMED_LIMIT)
}

function createRegistryStore(options: Omit<StoreTarget, "storage"> & { storage?: StateStorage }) {
  const store = createStore({
    context: { jobs: {}, consumed: [] } as RegistryContext,
    on: {
      registered: (context, event: { registration: JobRegistration }) => ({
        ...context,
        jobs: { ...context.jobs, [event.registration.jobId]: event.registration },
      }),
      handedOff: (context, event: { jobId: string; owner: string }) => {
        const registration = context.jobs[event.jobId]
        return registration === undefined ? context : { ...context, jobs: { ...context.jobs, [event.jobId]: { ...registration, owner: event.owner } } }
      },
      ended: (context, event: { jobId: string }) => {
        const { [event.jobId]: _ended, ...jobs } = context.jobs
        return { jobs, consumed: withConsumed(context.consumed, [event.jobId]) }
      },
      dropped: (context, event: { jobId: string }) => {
        const { [event.jobId]: _dropped, ...jobs } = context.jobs
        return { ...context, jobs }
      },
      tookOver: (context, event: { from: RegistryContext }) => ({
        jobs: { ...event.from.jobs, ...context.jobs },
        consumed: withConsumed(event.from.consumed, context.consumed),
      }),
    },
  })
  if (options.storage === undefined) return store
  return store.with(persist(persistOptions({ ...options, storage: options.storage }, registryContextSchema)))
}

export class JobRegistry {
  private readonly store: ReturnType<typeof createRegistryStore>
  /** Dead hosts' registry items taken over and not removed yet. */
  private readonly takenOver: string[] = []

  constructor(
    private readonly host: JobHost,
    private readonly storage?: StoreStorage,
    onError: (error: unknown) => void = () => {},
  ) {
    this.store = createRegistryStore({ storage: storage && ownItem(storage), hydrated: true, name: hostScopedName(JOB_REGISTRY_NAME, host), onError })
  }

  register(registration: JobRegistration): void {
    this.store.trigger.registered({ registration: jobRegistrationSchema.parse(registration) })
  }

  /** The session the job belongs to, or undefined for a job this host does not run. */
  ownerOf(jobId: string): string | undefined {
    return this.store.getSnapshot().context.jobs[jobId]?.owner
  }

  registrations(): JobRegistration[] {
    return Object.values(this.store.getSnapshot().context.jobs)
  }

  handOff(jobId: string, owner: string): void {
    this.store.trigger.handedOff({ jobId, owner })
  }

  /** The job's lifecycle ended: it leaves the registry, and its id is remembered as consumed. */
  end(jobId: string): void {
    this.store.trigger.ended({ jobId })
  }

  /** Another process runs the job (it took it over first): it leaves this registry, not consumed. */
  drop(jobId: string): void {
    this.store.trigger.dropped({ jobId })
  }

  isConsumed(jobId: string): boolean {
    return this.store.getSnapshot().context.consumed.includes(jobId)
  }

  /**
   * Start-up: the registries of hosts that are gone become this host's too (their jobs are about to be claimed:
   * adopted, orphaned or taken over here or by another process starting now). A registry that does not parse is
   * reported and left in place. The items stay until `releaseTakenOver`, once the jobs are claimed: another process
   * starting at the same moment must read them too, or a job it claims would lose the owner a handoff gave it.
   */
  async takeOver(isAlive: (host: JobHost) => boolean): Promise<string[]> {
    const storage = this.storage
    if (storage === undefined) return []
    const { taken, problems } = await takeOverDeadHosts({
      storage,
      base: JOB_REGISTRY_NAME,
      self: this.host,
      isAlive,
      open: (name, onError) => createRegistryStore({ storage, name, onError }),
      adopt: (context) => this.store.trigger.tookOver({ from: context }),
    })
    this.takenOver.push(...taken)
    return problems
  }

  /** Removes the dead hosts' registries taken over (their jobs are claimed now, here or elsewhere). */
  async releaseTakenOver(): Promise<void> {
    const storage = this.storage
    if (storage === undefined) return
    for (const name of this.takenOver.splice(0)) await storage.removeItem(name)
  }

  /** Waits for pending writes. */
  async flush(): Promise<void> {
    if (this.storage !== undefined) await flushStorage(this.store)
  }
}
