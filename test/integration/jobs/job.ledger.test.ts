import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { createKeyValueStorage } from "../../../adapters/storage/keyvalue.storage"
import { type LifecycleStore, openLifecycleStore } from "../../../adapters/storage/lifecycle.store"
import { JOB_LEDGER_LIMIT, JobLedger, type JobLedgerEntry } from "../../../services/jobs/job.ledger"

const entry = (n: number, kind: JobLedgerEntry["kind"] = "orphaned"): JobLedgerEntry => ({
  at: 1_000 + n,
  kind,
  jobId: `job_${n}`,
  sessionId: "s1",
  command: `sleep ${n}`,
  message: `entry ${n}`,
})

describe("job ledger (@xstate/store persisted in the workspace database)", () => {
  let dir: string
  let store: LifecycleStore
  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "forge-ledger-"))
    store = await openLifecycleStore(dir)
  })
  afterEach(async () => {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it("keeps only the newest entries", () => {
    const ledger = new JobLedger()
    for (let n = 1; n <= JOB_LEDGER_LIMIT + 5; n++) ledger.append(entry(n))
    const entries = ledger.entries()
    expect(entries).toHaveLength(JOB_LEDGER_LIMIT)
    expect(entries[0]?.jobId).toBe("job_6")
    expect(entries.at(-1)?.jobId).toBe(`job_${JOB_LEDGER_LIMIT + 5}`)
  })

  it("survives the host: the next host's ledger hydrates what the last one wrote, keeping its own new entries", async () => {
    const first = new JobLedger(createKeyValueStorage(store.connection))
    await first.hydrate()
    first.append(entry(1, "adopted"))
    first.append(entry(2, "session-deleted"))
    await first.flush()
    const next = new JobLedger(createKeyValueStorage(store.connection))
    next.append(entry(3))
    await next.hydrate()
    expect(next.entries().map((e) => `${e.kind} ${e.jobId}`)).toEqual(["adopted job_1", "session-deleted job_2", "orphaned job_3"])
  })

  it("refuses a malformed entry, naming the field", () => {
    const ledger = new JobLedger()
    expect(() => ledger.append({ ...entry(1), kind: "vanished" as JobLedgerEntry["kind"] })).toThrow(/kind/)
    expect(ledger.entries()).toEqual([])
  })
})
