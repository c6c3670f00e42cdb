// The lifecycle repository contract, its writers: a step decided in one write transaction, exclusive keys, the change
// feed and stamps other connections see, and concurrent calls kept in order.
import assert from "node:assert/strict"
import { ExclusiveKeyTaken } from "../../../services/lifecycle/exclusive.key"
import type { ContractTestApi } from "./contract.api"
import { type ContractHarness, failTransitionsWithEvent, repositoryCases, snapshot, transition } from "./lifecycle-repository.fixtures"

/** Registers the cases about writers: steps, exclusive keys, change tracking, connections and concurrency. */
export function defineConcurrencyContract(api: ContractTestApi, harness: ContractHarness): void {
  const { caseOf, open } = repositoryCases(api, harness)

  caseOf("step decides on the latest record in one write transaction and bumps its revision", async (dir) => {
    const { store } = await open(dir)
    try {
      const repo = store.repository
      const seen: (number | undefined)[] = []
      const first = await repo.step("plan", "p1", async (current) => {
        seen.push(current?.revision)
        return { snapshot: snapshot(), transition: transition({ from: "(none)", event: "xstate.init", to: "draft" }) }
      })
      assert.equal(first?.revision, 1)
      const second = await repo.step("plan", "p1", async (current) => {
        seen.push(current?.revision)
        return { snapshot: snapshot({ state: "approved", exclusiveKey: "plan:session:s1" }), transition: transition() }
      })
      assert.deepEqual([second?.revision, second?.state, second?.exclusiveKey], [2, "approved", "plan:session:s1"])
      assert.deepEqual(seen, [undefined, 1])
      // Deciding nothing writes nothing; a decision that throws leaves row and log as they were.
      assert.equal(await repo.step("plan", "p1", async () => undefined), undefined)
      await assert.rejects(
        repo.step("plan", "p1", async () => {
          throw new Error("the document write failed")
        }),
        /the document write failed/,
      )
      assert.equal((await repo.getSnapshot("plan", "p1"))?.revision, 2)
      assert.equal((await repo.listTransitions()).length, 2)
    } finally {
      await store.close()
    }
  })

  caseOf("an exclusive key has one live holder: a second is refused by name, a freed key is taken", async (dir) => {
    const { store } = await open(dir)
    try {
      const repo = store.repository
      await repo.saveSnapshot(snapshot({ instanceId: "a", exclusiveKey: "plan:session:s1" }))
      const second = repo.step("plan", "b", async () => ({
        snapshot: snapshot({ instanceId: "b", exclusiveKey: "plan:session:s1" }),
        transition: transition(),
      }))
      await assert.rejects(second, (error: unknown) => error instanceof ExclusiveKeyTaken && error.holder === "a" && error.key === "plan:session:s1")
      assert.equal(await repo.getSnapshot("plan", "b"), undefined)
      // The holder may write itself again; once it lets the key go, another takes it.
      await repo.saveSnapshot(snapshot({ instanceId: "a", exclusiveKey: "plan:session:s1", state: "approved" }))
      await repo.saveSnapshot(snapshot({ instanceId: "a", exclusiveKey: null, state: "done", terminal: true }))
      await repo.saveSnapshot(snapshot({ instanceId: "b", exclusiveKey: "plan:session:s1" }))
      assert.equal((await repo.getSnapshot("plan", "b"))?.exclusiveKey, "plan:session:s1")
    } finally {
      await store.close()
    }
  })

  caseOf("changedSince hands out the rows written after a point, in the order they were written", async (dir) => {
    const { store } = await open(dir)
    try {
      const repo = store.repository
      await repo.saveSnapshot(snapshot({ instanceId: "a" }))
      await repo.saveSnapshot(snapshot({ machineId: "job", instanceId: "j" }))
      const all = await repo.changedSince(0)
      assert.deepEqual(
        all.records.map((r) => r.instanceId),
        ["a", "j"],
      )
      await repo.saveSnapshot(snapshot({ instanceId: "b" }))
      await repo.saveSnapshot(snapshot({ instanceId: "a", state: "approved" }))
      const later = await repo.changedSince(all.seq, ["plan"])
      assert.deepEqual(
        later.records.map((r) => [r.instanceId, r.state]),
        [
          ["b", "draft"],
          ["a", "approved"],
        ],
      )
      assert.deepEqual((await repo.changedSince(later.seq)).records, [])
    } finally {
      await store.close()
    }
  })

  caseOf("the change stamp moves with every commit, another connection's included, and stays while nobody commits", async (dir) => {
    const writer = await open(dir)
    const reader = await open(dir)
    try {
      const stamp = () => reader.store.repository.changeStamp?.()
      const before = stamp()
      assert.notEqual(before, undefined)
      assert.equal(stamp(), before)
      await writer.store.repository.saveSnapshot(snapshot({ instanceId: "other" }))
      const after = stamp()
      assert.notEqual(after, before)
      await reader.store.repository.loadSnapshots()
      assert.equal(stamp(), after)
    } finally {
      await writer.store.close()
      await reader.store.close()
    }
  })

  caseOf("data_version moves for another connection's commit, not for the connection's own", async (dir) => {
    const writer = await open(dir)
    const reader = await open(dir)
    try {
      const before = await reader.store.repository.dataVersion()
      await reader.store.repository.saveSnapshot(snapshot({ instanceId: "own" }))
      assert.equal(await reader.store.repository.dataVersion(), before)
      await writer.store.repository.saveSnapshot(snapshot({ instanceId: "other" }))
      assert.notEqual(await reader.store.repository.dataVersion(), before)
    } finally {
      await writer.store.close()
      await reader.store.close()
    }
  })

  caseOf("a second connection on the same file sees committed data", async (dir) => {
    const writer = await open(dir)
    const reader = await open(dir)
    try {
      await writer.store.repository.commit(snapshot({ state: "approved" }), transition())
      assert.equal((await reader.store.repository.getSnapshot("plan", "p1"))?.state, "approved")
      assert.equal((await reader.store.repository.listTransitions()).length, 1)
    } finally {
      await writer.store.close()
      await reader.store.close()
    }
  })

  caseOf("concurrent calls serialize: no interleaving inside a commit, call order kept", async (dir) => {
    const { store, driver } = await open(dir)
    try {
      await failTransitionsWithEvent(driver, "BOOM")
      const calls: Promise<string>[] = []
      const expectedFailures: string[] = []
      for (let i = 0; i < 40; i += 1) {
        const id = `i${String(i).padStart(2, "0")}`
        const failing = i % 7 === 3 && i % 5 !== 4
        if (failing) expectedFailures.push(id)
        if (i % 5 === 4) {
          calls.push(store.repository.saveSnapshot(snapshot({ instanceId: id, state: "saved" })).then(() => `saved ${id}`))
        } else {
          const done = store.repository.commit(snapshot({ instanceId: id, state: "approved" }), transition({ instanceId: id, event: failing ? "BOOM" : "GO" }))
          calls.push(
            done.then(
              () => `committed ${id}`,
              () => `failed ${id}`,
            ),
          )
        }
      }
      const outcomes = await Promise.all(calls)
      const committed = outcomes.filter((o) => o.startsWith("committed")).map((o) => o.slice("committed ".length))
      const failed = outcomes.filter((o) => o.startsWith("failed")).map((o) => o.slice("failed ".length))
      const saved = outcomes.filter((o) => o.startsWith("saved")).map((o) => o.slice("saved ".length))
      assert.deepEqual(failed, expectedFailures)
      assert.equal(failed.length, 5)
      assert.equal(saved.length, 8)
      assert.deepEqual(
        (await store.repository.listTransitions()).map((t) => t.instanceId),
        committed,
      )
      const stored = await store.repository.loadSnapshots()
      assert.deepEqual(
        stored.map((s) => s.instanceId),
        [...committed, ...saved].sort(),
      )
      for (const id of failed) assert.equal(await store.repository.getSnapshot("plan", id), undefined)
    } finally {
      await store.close()
    }
  })
}
