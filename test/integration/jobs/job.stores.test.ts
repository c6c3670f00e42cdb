import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { tempDir } from "../../temp.dir"
import { createKeyValueStorage } from "../../../adapters/storage/keyvalue.storage"
import { type LifecycleStore, openLifecycleStore } from "../../../adapters/storage/lifecycle.store"
import type { JobHost } from "../../../machines/job/job.machine"
import { SqliteLedgerStore } from "../../../adapters/storage/ledger.repository"
import { JOB_LEDGER_LIMIT, JobLedger, type JobLedgerEntry } from "../../../services/job/job.ledger"
import { CONSUMED_LIMIT, JOB_REGISTRY_NAME, JobRegistry } from "../../../services/job/job.registry"
import { hostOfName, hostScopedName } from "../../../services/job/job.stores"

// The job registry: an @xstate/store persisted per host in the workspace database's key_value table. The job ledger:
// a named ledger in the database's ledger table that every host appends to. Hosts here are identities only; whether
// one still runs is the `isAlive` answer each test gives.

const entry = (n: number, kind: JobLedgerEntry["kind"] = "orphaned"): JobLedgerEntry => ({
  at: 1_000 + n,
  kind,
  jobId: `job_${n}`,
  sessionId: "s1",
  command: `sleep ${n}`,
  message: `entry ${n}`,
})
const hostA: JobHost = { pid: 101, startedAt: 1_000, instance: "a1" }
const hostB: JobHost = { pid: 202, startedAt: 2_000, instance: "b1" }
const hostC: JobHost = { pid: 303, startedAt: 3_000, instance: "c1" }
// Liveness is the process's: every instance of a living process is alive.
const alive =
  (...hosts: JobHost[]) =>
  (host: JobHost) =>
    hosts.some((h) => h.pid === host.pid && h.startedAt === host.startedAt)

describe("job stores persisted per host", () => {
  let dir: string
  let store: LifecycleStore
  beforeEach(async () => {
    dir = tempDir("forge-job-stores-")
    store = await openLifecycleStore(dir)
  })
  afterEach(async () => {
    await store.close()
  })
  const kv = () => createKeyValueStorage(store.connection)

  it("names each host's item by pid and start time, and reads the host back from the name", () => {
    expect(hostScopedName(JOB_REGISTRY_NAME, hostA)).toBe("forge.job-registry@101.1000.a1")
    expect(hostOfName(JOB_REGISTRY_NAME, "forge.job-registry@101.1000.a1")).toEqual(hostA)
    expect(hostOfName(JOB_REGISTRY_NAME, "forge.job-registry")).toBeNull()
    expect(hostOfName(JOB_REGISTRY_NAME, "forge.job-registry@101.1000")).toBeNull()
    expect(hostOfName(JOB_REGISTRY_NAME, "forge.job-ledger@101.1000.a1")).toBeNull()
    expect(hostOfName(JOB_REGISTRY_NAME, "forge.job-registry@101.x.a1")).toBeNull()
  })

  it("lists items by prefix, taking `_` and `%` literally", async () => {
    const storage = kv()
    await storage.setItem("a_b.1", "{}")
    await storage.setItem("axb.2", "{}")
    await storage.setItem("a%b.3", "{}")
    expect(await storage.names("a_b")).toEqual(["a_b.1"])
    expect(await storage.names("a%")).toEqual(["a%b.3"])
  })

  describe("ledger", () => {
    const rows = () => new SqliteLedgerStore(store.connection)

    it("keeps only the newest entries", async () => {
      const ledger = new JobLedger()
      for (let n = 1; n <= JOB_LEDGER_LIMIT + 5; n++) ledger.append(entry(n))
      const entries = await ledger.entries()
      expect(entries).toHaveLength(JOB_LEDGER_LIMIT)
      expect(entries[0]?.jobId).toBe("job_6")
      expect(entries.at(-1)?.jobId).toBe(`job_${JOB_LEDGER_LIMIT + 5}`)
    })

    it("keeps only the newest entries in the database too", async () => {
      const ledger = new JobLedger(rows())
      for (let n = 1; n <= JOB_LEDGER_LIMIT + 5; n++) ledger.append(entry(n))
      const entries = await ledger.entries()
      expect(entries).toHaveLength(JOB_LEDGER_LIMIT)
      expect(entries[0]?.jobId).toBe("job_6")
      expect(entries.at(-1)?.jobId).toBe(`job_${JOB_LEDGER_LIMIT + 5}`)
    })

    // Rows, not per-host items: two hosts append, nothing overwrites, and no start has to take a dead host's over.
    it("two hosts on one workspace never overwrite each other's entries; the next host reads both, with no take-over", async () => {
      const a = new JobLedger(rows())
      const b = new JobLedger(rows())
      a.append(entry(1, "adopted"))
      await a.flush()
      b.append(entry(2, "session-deleted"))
      await b.flush()
      a.append(entry(3))
      await a.flush()
      const next = new JobLedger(rows())
      expect((await next.entries()).map((e) => `${e.kind} ${e.jobId}`)).toEqual(["adopted job_1", "session-deleted job_2", "orphaned job_3"])
      expect(await kv().names("forge.job-ledger")).toEqual([])
    })

    it("reports a damaged row by id and field, and still reads the others", async () => {
      await store.connection.driver.run(
        "INSERT INTO ledger_entries (ledger, kind, session_id, subject, at, entry) VALUES ('job', 'vanished', NULL, 'job_0', 1, ?)",
        [JSON.stringify({ ...entry(0), kind: "vanished" })],
      )
      await store.connection.driver.run(
        "INSERT INTO ledger_entries (ledger, kind, session_id, subject, at, entry) VALUES ('job', 'orphaned', NULL, 'job_9', 1, 'torn{')",
      )
      const problems: string[] = []
      const ledger = new JobLedger(rows(), (problem) => problems.push(problem))
      ledger.append(entry(1))
      expect((await ledger.entries()).map((e) => e.jobId)).toEqual(["job_1"])
      expect(problems).toHaveLength(2)
      expect(problems[0]).toMatch(/job ledger row 1:[\s\S]*kind/)
      expect(problems[1]).toMatch(/ledger_entries row 2 \(job\): entry is not JSON: torn\{/)
    })

    it("a failed write is reported, never thrown at the supervisor", async () => {
      const problems: string[] = []
      const ledger = new JobLedger({ append: async () => Promise.reject(new Error("disk full")), query: async () => [] }, (problem) => problems.push(problem))
      ledger.append(entry(1))
      await ledger.flush()
      expect(problems).toEqual(["an entry was not recorded: disk full"])
    })

    it("refuses a malformed entry, naming the field", async () => {
      const ledger = new JobLedger()
      expect(() => ledger.append({ ...entry(1), kind: "vanished" as JobLedgerEntry["kind"] })).toThrow(/kind/)
      expect(await ledger.entries()).toEqual([])
    })
  })

  describe("registry", () => {
    const registration = (jobId: string, owner = "s1") => ({ jobId, owner, survive: false, registeredAt: 5 })

    it("knows each job's owner until the job ends, then remembers it as consumed", () => {
      const registry = new JobRegistry(hostA)
      registry.register(registration("job_1"))
      expect(registry.ownerOf("job_1")).toBe("s1")
      registry.handOff("job_1", "root")
      expect(registry.ownerOf("job_1")).toBe("root")
      // A handoff of a job the registry does not hold changes nothing.
      registry.handOff("job_9", "root")
      expect(registry.ownerOf("job_9")).toBeUndefined()
      expect(registry.isConsumed("job_1")).toBe(false)
      registry.end("job_1")
      expect(registry.ownerOf("job_1")).toBeUndefined()
      expect(registry.isConsumed("job_1")).toBe(true)
      expect(registry.registrations()).toEqual([])
    })

    it("remembers a bounded number of consumed jobs", () => {
      const registry = new JobRegistry(hostA)
      for (let n = 0; n <= CONSUMED_LIMIT; n++) registry.end(`job_${n}`)
      expect(registry.isConsumed("job_0")).toBe(false)
      expect(registry.isConsumed("job_1")).toBe(true)
      expect(registry.isConsumed(`job_${CONSUMED_LIMIT}`)).toBe(true)
    })

    it("refuses a malformed registration, naming the field", () => {
      const registry = new JobRegistry(hostA)
      expect(() => registry.register({ ...registration("job_1"), owner: "" })).toThrow(/owner/)
      expect(registry.registrations()).toEqual([])
    })

    it("the next host takes over a dead host's owners and consumed ids; a live host's registry stays its own", async () => {
      const dead = new JobRegistry(hostA, kv())
      dead.register(registration("job_1"))
      dead.handOff("job_1", "root")
      dead.register(registration("job_2"))
      dead.end("job_2")
      await dead.flush()
      const living = new JobRegistry(hostB, kv())
      living.register(registration("job_3", "s3"))
      await living.flush()
      const next = new JobRegistry(hostC, kv())
      // Another host starting at the same moment reads the dead registry too: a job it claims keeps its handoff.
      const rival = new JobRegistry(hostB, kv())
      expect(await next.takeOver(alive(hostB))).toEqual([])
      expect(await rival.takeOver(alive(hostC))).toEqual([])
      expect(next.ownerOf("job_1")).toBe("root")
      expect(rival.ownerOf("job_1")).toBe("root")
      expect(next.isConsumed("job_2")).toBe(true)
      expect(next.ownerOf("job_3")).toBeUndefined()
      // Removed once the jobs are claimed.
      expect(await kv().getItem(hostScopedName(JOB_REGISTRY_NAME, hostA))).not.toBeNull()
      await next.releaseTakenOver()
      await rival.releaseTakenOver()
      expect(await kv().getItem(hostScopedName(JOB_REGISTRY_NAME, hostA))).toBeNull()
      expect(await kv().getItem(hostScopedName(JOB_REGISTRY_NAME, hostB))).not.toBeNull()
    })
  })
})
