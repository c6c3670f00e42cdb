// The lifecycle repository contract, its records: snapshots and transitions written, read back, filtered and pruned,
// bad ones refused and damaged ones contained.
import assert from "node:assert/strict"
import type { DamagedSnapshot, SnapshotRecord, TransitionRecord } from "../../../services/lifecycle/lifecycle.ports"
import type { ContractTestApi } from "./contract.api"
import { type ContractHarness, errorText, failTransitionsWithEvent, repositoryCases, snapshot, transition } from "./lifecycle-repository.fixtures"

/** Registers the cases about records: writing, reading, filtering and pruning snapshots and transitions. */
export function defineRecordsContract(api: ContractTestApi, harness: ContractHarness): void {
  const { caseOf, open } = repositoryCases(api, harness)

  caseOf("saveSnapshot upserts by machine id and instance id", async (dir) => {
    const { store } = await open(dir)
    try {
      const repo = store.repository
      await repo.saveSnapshot(snapshot({ instanceId: "a", state: "draft" }))
      await repo.saveSnapshot(snapshot({ machineId: "goal", instanceId: "a", state: "queued" }))
      const updated = snapshot({ instanceId: "a", state: "approved", terminal: true, sessionId: null, document: null, machineVersion: "2", updatedAt: 9 })
      await repo.saveSnapshot(updated)
      assert.deepEqual(await repo.getSnapshot("plan", "a"), { ...updated, exclusiveKey: null, revision: 2 })
      assert.equal((await repo.getSnapshot("goal", "a"))?.state, "queued")
      assert.equal((await repo.loadSnapshots()).length, 2)
      assert.equal(await repo.getSnapshot("plan", "missing"), undefined)
    } finally {
      await store.close()
    }
  })

  caseOf("snapshot JSON round-trips exactly", async (dir) => {
    const { store } = await open(dir)
    try {
      const value = {
        status: "active",
        value: { approved: "working" },
        context: { text: 'quotes " and \\ and\nnewlines, ünïcødé, emoji 🚀', n: [0, -1, 3.25, 1e-7, 9007199254740991], none: null, empty: {}, list: [] },
        historyValue: {},
        children: { job: { snapshot: { deep: [[{ k: true }]] } } },
      }
      await store.repository.saveSnapshot(snapshot({ snapshot: value }))
      const loaded = await store.repository.getSnapshot("plan", "p1")
      assert.deepEqual(loaded?.snapshot, value)
      assert.equal(JSON.stringify(loaded?.snapshot), JSON.stringify(value))
      for (const scalar of ["text", 42, false, null, [1, "two"]]) {
        await store.repository.saveSnapshot(snapshot({ instanceId: "scalar", snapshot: scalar }))
        assert.deepEqual((await store.repository.getSnapshot("plan", "scalar"))?.snapshot, scalar)
      }
    } finally {
      await store.close()
    }
  })

  caseOf("commit writes the snapshot and appends the transition", async (dir) => {
    const { store } = await open(dir)
    try {
      const next = snapshot({ state: "approved", updatedAt: 20 })
      await store.repository.commit(next, transition({ from: "draft", event: "APPROVE", to: "approved", at: 20 }))
      assert.deepEqual(await store.repository.getSnapshot("plan", "p1"), { ...next, exclusiveKey: null, revision: 1 })
      assert.deepEqual(await store.repository.listTransitions(), [transition({ from: "draft", event: "APPROVE", to: "approved", at: 20 })])
    } finally {
      await store.close()
    }
  })

  caseOf("commit is atomic: a failing transition insert leaves the snapshot unwritten", async (dir) => {
    const { store, driver } = await open(dir)
    try {
      await failTransitionsWithEvent(driver, "BOOM")
      await store.repository.saveSnapshot(snapshot({ state: "draft", updatedAt: 1 }))
      await assert.rejects(store.repository.commit(snapshot({ state: "approved", updatedAt: 2 }), transition({ event: "BOOM" })), (error: unknown) =>
        errorText(error).includes("forced transition failure"),
      )
      assert.equal((await store.repository.getSnapshot("plan", "p1"))?.state, "draft")
      await assert.rejects(store.repository.commit(snapshot({ instanceId: "fresh" }), transition({ instanceId: "fresh", event: "BOOM" })))
      assert.equal(await store.repository.getSnapshot("plan", "fresh"), undefined)
      assert.deepEqual(await store.repository.listTransitions(), [])
      // The connection is usable again: the failed transaction was rolled back, not left open.
      await store.repository.commit(snapshot({ state: "approved" }), transition())
      assert.equal((await store.repository.listTransitions()).length, 1)
    } finally {
      await store.close()
    }
  })

  caseOf("invalid records are refused before anything is written", async (dir) => {
    const { store } = await open(dir)
    try {
      await assert.rejects(store.repository.commit(snapshot(), transition({ event: "" })), /commit: invalid transition record[\s\S]*event/)
      await assert.rejects(store.repository.saveSnapshot(snapshot({ updatedAt: -1 })), /saveSnapshot: invalid snapshot record[\s\S]*updatedAt/)
      await assert.rejects(store.repository.saveSnapshot(snapshot({ snapshot: undefined })), /snapshot of plan\/p1 is not serializable as JSON/)
      const cyclic: Record<string, unknown> = {}
      cyclic.self = cyclic
      await assert.rejects(store.repository.saveSnapshot(snapshot({ snapshot: cyclic })), /snapshot of plan\/p1 is not serializable as JSON/)
      assert.deepEqual(await store.repository.loadSnapshots(), [])
      assert.deepEqual(await store.repository.listTransitions(), [])
    } finally {
      await store.close()
    }
  })

  caseOf("a corrupt snapshot row costs only its own instance: left out of the load and reported naming the actor", async (dir) => {
    const { store, driver } = await open(dir)
    try {
      await store.repository.saveSnapshot(snapshot({ instanceId: "bad", sessionId: "s9", document: ".opencode/plan/bad.md" }))
      await store.repository.saveSnapshot(snapshot({ instanceId: "good" }))
      await driver.run("UPDATE actors SET snapshot = ? WHERE instance_id = ?", ["{not json", "bad"])
      const damaged: DamagedSnapshot[] = []
      const loaded = await store.repository.loadSnapshots({ onDamaged: (damage) => damaged.push(damage) })
      assert.deepEqual(
        loaded.map((r) => r.instanceId),
        ["good"],
      )
      assert.equal(damaged.length, 1)
      assert.equal(damaged[0]?.instanceId, "bad")
      assert.equal(damaged[0]?.sessionId, "s9")
      assert.equal(damaged[0]?.document, ".opencode/plan/bad.md")
      assert.match(damaged[0]?.problem ?? "", /actors row plan\/bad: snapshot is not valid JSON/)
      // Without a listener the damaged row is still only left out.
      assert.deepEqual(
        (await store.repository.loadSnapshots()).map((r) => r.instanceId),
        ["good"],
      )
      // Its id is still known: nothing is decoded to list the ids (what a rebuild from documents must skip).
      assert.deepEqual((await store.repository.instanceIds("plan")).sort(), ["bad", "good"])
      assert.deepEqual(await store.repository.instanceIds("goal"), [])
    } finally {
      await store.close()
    }
  })

  caseOf("listTransitions returns insertion order and applies every filter", async (dir) => {
    const { store } = await open(dir)
    try {
      const rows: TransitionRecord[] = [
        transition({ machineId: "plan", instanceId: "a", sessionId: "s1", event: "E1", at: 50 }),
        transition({ machineId: "goal", instanceId: "a", sessionId: "s2", event: "E2", at: 10 }),
        transition({ machineId: "plan", instanceId: "b", sessionId: null, event: "E3", at: 30 }),
        transition({ machineId: "plan", instanceId: "a", sessionId: "s2", event: "E4", at: 20 }),
      ]
      for (const row of rows) {
        await store.repository.commit(snapshot({ machineId: row.machineId, instanceId: row.instanceId }), row)
      }
      const events = async (filter?: Parameters<typeof store.repository.listTransitions>[0]) =>
        (await store.repository.listTransitions(filter)).map((t) => t.event)
      assert.deepEqual(await store.repository.listTransitions(), rows)
      assert.deepEqual(await events({ machineId: "plan" }), ["E1", "E3", "E4"])
      assert.deepEqual(await events({ instanceId: "a" }), ["E1", "E2", "E4"])
      assert.deepEqual(await events({ sessionId: "s2" }), ["E2", "E4"])
      assert.deepEqual(await events({ machineId: "plan", instanceId: "a" }), ["E1", "E4"])
      assert.deepEqual(await events({ machineId: "plan", instanceId: "a", sessionId: "s2" }), ["E4"])
      assert.deepEqual(await events({ machineId: "crew" }), [])
    } finally {
      await store.close()
    }
  })

  caseOf("loadSnapshots filters by machine and leaves out terminal actors on request", async (dir) => {
    const { store } = await open(dir)
    try {
      await store.repository.saveSnapshot(snapshot({ machineId: "plan", instanceId: "b", terminal: true, state: "done" }))
      await store.repository.saveSnapshot(snapshot({ machineId: "plan", instanceId: "a" }))
      await store.repository.saveSnapshot(snapshot({ machineId: "goal", instanceId: "g", terminal: true, state: "completed" }))
      const ids = (records: SnapshotRecord[]) => records.map((r) => `${r.machineId}/${r.instanceId}`)
      assert.deepEqual(ids(await store.repository.loadSnapshots()), ["goal/g", "plan/a", "plan/b"])
      assert.deepEqual(ids(await store.repository.loadSnapshots({ includeTerminal: true })), ["goal/g", "plan/a", "plan/b"])
      assert.deepEqual(ids(await store.repository.loadSnapshots({ includeTerminal: false })), ["plan/a"])
      assert.deepEqual(ids(await store.repository.loadSnapshots({ machineId: "plan" })), ["plan/a", "plan/b"])
      assert.deepEqual(ids(await store.repository.loadSnapshots({ machineId: "goal", includeTerminal: false })), [])
      assert.equal((await store.repository.getSnapshot("plan", "b"))?.terminal, true)
    } finally {
      await store.close()
    }
  })

  caseOf("pruneTerminal keeps the newest terminal instances of one machine, their transitions, and every live one", async (dir) => {
    const { store } = await open(dir)
    try {
      const repo = store.repository
      for (let n = 1; n <= 5; n++) {
        await repo.commit(
          snapshot({ machineId: "job", instanceId: `j${n}`, terminal: true, state: "cleared", updatedAt: n * 10 }),
          transition({ machineId: "job", instanceId: `j${n}`, at: n * 10 }),
        )
      }
      await repo.commit(snapshot({ machineId: "job", instanceId: "live", updatedAt: 1 }), transition({ machineId: "job", instanceId: "live", at: 1 }))
      await repo.commit(
        snapshot({ machineId: "plan", instanceId: "old", terminal: true, state: "done", updatedAt: 0 }),
        transition({ instanceId: "old", at: 0 }),
      )
      assert.equal(await repo.pruneTerminal("job", 2), 3)
      const ids = (records: { instanceId: string }[]) => records.map((r) => r.instanceId).sort()
      assert.deepEqual(ids(await repo.loadSnapshots({ machineId: "job" })), ["j4", "j5", "live"])
      assert.deepEqual(ids(await repo.listTransitions({ machineId: "job" })), ["j4", "j5", "live"])
      // Another machine's history is its own.
      assert.deepEqual(ids(await repo.loadSnapshots({ machineId: "plan" })), ["old"])
      assert.equal(await repo.pruneTerminal("job", 2), 0)
      await assert.rejects(repo.pruneTerminal("job", -1), /keep must be a whole number >= 0, got -1/)
    } finally {
      await store.close()
    }
  })
}
