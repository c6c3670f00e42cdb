import { describe, expect, it } from "vitest"
import { SqliteDriverClaimStore } from "../../../adapters/storage/driver.claim.repository"
import { inspectLifecycleRecords } from "../../../adapters/storage/status.records"
import { openLifecycleStore } from "../../../adapters/storage/lifecycle.store"
import type { DamagedSnapshot } from "../../../services/lifecycle/lifecycle.ports"
import { ramTempDir } from "../../temp.dir"
import { snapshot, transition } from "./lifecycle-repository.fixtures"

// forgecharts status reads the records with plain SELECTs rather than the repository (drizzle and zod cost more to load
// than the read). What it reads must be what the repository reads: every record decoded alike, finished ones too, in
// the same order, the same rows reported damaged, and the same driver claims.

describe("inspectLifecycleRecords", () => {
  it("reads what the repository's loadSnapshots and the claim store read", async () => {
    const dir = ramTempDir("forge-inspection-")
    const store = await openLifecycleStore(dir)
    await store.repository.commit(snapshot(), transition())
    await store.repository.commit(snapshot({ state: "approved.working" }), transition({ from: "draft", event: "plan.approve", to: "approved.working" }))
    await store.repository.saveSnapshot(snapshot({ instanceId: "p0", sessionId: null, document: null, state: "done", terminal: true, exclusiveKey: null }))
    await store.repository.saveSnapshot(snapshot({ machineId: "goal", instanceId: "g1", state: "active.working", exclusiveKey: "goal:session:s1" }))
    await store.repository.saveSnapshot(snapshot({ machineId: "loop", instanceId: "l1", sessionId: "s2", state: "running.coding.working", document: null }))
    await store.repository.saveSnapshot(
      snapshot({ machineId: "job", instanceId: "j1", state: "cleared", terminal: true, document: null, updatedAt: 1_700_000_500_000 }),
    )
    await store.repository.saveSnapshot(snapshot({ machineId: "crew", instanceId: "c1", state: "pending.standby" }))
    await store.connection.driver.run("UPDATE actors SET snapshot = ? WHERE machine_id = ?", ["{torn", "crew"])
    const claims = new SqliteDriverClaimStore(store.connection)
    await claims.take("goal", "g1", () => ({ holder: "100:5", until: 1_700_000_010_000 }))
    await claims.take("loop", "l1", () => ({ holder: "200:7", until: 1_700_000_020_000 }))
    const damaged: DamagedSnapshot[] = []
    const expected = {
      records: await store.repository.loadSnapshots({ includeTerminal: true, onDamaged: (d) => damaged.push(d) }),
      damaged,
      claims: await claims.list(),
    }
    await store.close()

    const inspected = await inspectLifecycleRecords(store.file)
    expect(inspected).toEqual(expected)
    expect(inspected.records.map((r) => `${r.machineId} ${r.instanceId} ${r.terminal} r${r.revision}`)).toEqual([
      "goal g1 false r1",
      "job j1 true r1",
      "loop l1 false r1",
      "plan p0 true r1",
      "plan p1 false r2",
    ])
    expect(inspected.damaged).toEqual([
      expect.objectContaining({ machineId: "crew", instanceId: "c1", problem: expect.stringContaining("actors row crew/c1") }),
    ])
    expect(inspected.claims).toHaveLength(2)
  })
})
