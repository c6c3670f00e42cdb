// The jobs of a host that died, taken over by the next one: a completion it could not deliver, survive jobs adopted
// (once, when two hosts start together), a job that escaped its fence orphaned, and what it remembered kept.
import { beforeEach, describe, expect, it } from "vitest"
import { isAlive } from "../../../adapters/process/proc.table"
import { SqliteLedgerStore } from "../../../adapters/storage/ledger.repository"
import type { LifecycleStore } from "../../../adapters/storage/lifecycle.store"
import { JobLedger } from "../../../services/job/job.ledger"
import { jobIdOf, otherHost, supervisorWorld } from "./job.supervisor.helpers"

describe("job supervisor with real processes", () => {
  const world = supervisorWorld()
  const { host, clock, request, newSupervisor, recorded } = world
  let wakes: { session: string; text: string }[]
  let store: LifecycleStore
  let ledger: JobLedger
  // The running test's world (set up by supervisorWorld's beforeEach, which runs first), under the names the tests use.
  beforeEach(() => {
    ;({ wakes, store, ledger } = world.current())
  })

  it("a completion the previous host could not deliver wakes its session after the restart, once, asking whether it is idle", async () => {
    const other = await otherHost()
    let silenced = false
    const first = newSupervisor({ host: other.host, silenced: () => silenced })
    const id = jobIdOf(await first.run("s1", request({ command: "sleep 0.2; echo finished", run_in_background: true })))
    // The job ends while its session is busy as far as this host knows: the wake stays pending.
    await expect.poll(async () => (await store.repository.getSnapshot("job", id))?.state, { timeout: 5_000 }).toBe("exited.wakePending")
    silenced = true
    await other.kill()
    const asked: string[] = []
    const next = newSupervisor({
      sessionIsIdle: async (session) => {
        asked.push(session)
        return session === "s1"
      },
    })
    try {
      await next.restore(store.repository)
      await expect.poll(() => wakes.length, { timeout: 5_000 }).toBe(1)
      expect(wakes[0]).toMatchObject({ session: "s1" })
      expect(wakes[0]?.text).toMatch(new RegExp(`^\\[forge:job-complete\\] Job ${id} finished`))
      expect(asked).toEqual(["s1"])
      // Known idle now, from the answer: a later idle event does not deliver it again.
      next.sessionStatus("s1", "idle")
      await new Promise((r) => setTimeout(r, 200))
      expect(wakes).toHaveLength(1)
    } finally {
      await next.dispose()
      await first.dispose()
    }
  })

  it("two hosts starting together after their predecessor died adopt each survive job exactly once", async () => {
    const dead = await otherHost()
    const first = newSupervisor({ host: dead.host })
    const ids: string[] = []
    for (let i = 0; i < 6; i++) ids.push(jobIdOf(await first.run("s1", request({ command: "sleep 30", survive: true, run_in_background: true }))))
    await first.dispose()
    await dead.kill()
    const rival = await otherHost()
    const here = newSupervisor()
    const there = newSupervisor({ host: rival.host })
    try {
      const [a, b] = await Promise.all([here.restore(store.repository), there.restore(store.repository)])
      expect([...a.adopted, ...b.adopted].sort()).toEqual([...ids].sort())
      expect(a.adopted.filter((id) => b.adopted.includes(id))).toEqual([])
      // What one adopted, the other left to it: listed by exactly one host.
      expect([...a.elsewhere, ...b.elsewhere].sort()).toEqual([...ids].sort())
      for (const id of ids) {
        const log = await store.repository.listTransitions({ instanceId: id })
        expect(
          log.filter(({ event }) => event === "job.adopt"),
          `${id}: one adoption recorded`,
        ).toHaveLength(1)
        expect(`${here.list()}\n${there.list()}`.split(id).length - 1, `${id}: listed once`).toBe(1)
      }
    } finally {
      for (const id of ids) await (here.list().includes(id) ? here : there).kill(id)
      await here.dispose()
      await there.dispose()
      await rival.kill()
    }
  })

  it("two hosts starting together deliver a dead host's pending wake once", async () => {
    const dead = await otherHost()
    let silenced = false
    const first = newSupervisor({ host: dead.host, silenced: () => silenced })
    const id = jobIdOf(await first.run("s1", request({ command: "sleep 0.2; echo finished", run_in_background: true })))
    await expect.poll(async () => (await store.repository.getSnapshot("job", id))?.state, { timeout: 5_000 }).toBe("exited.wakePending")
    silenced = true
    await dead.kill()
    const rival = await otherHost()
    const idle = { sessionIsIdle: async () => true }
    const here = newSupervisor(idle)
    const there = newSupervisor({ ...idle, host: rival.host })
    try {
      const [a, b] = await Promise.all([here.restore(store.repository), there.restore(store.repository)])
      expect([...a.takenOver, ...b.takenOver]).toEqual([id])
      await expect.poll(() => wakes.length, { timeout: 5_000 }).toBe(1)
      here.sessionStatus("s1", "idle")
      there.sessionStatus("s1", "idle")
      await new Promise((r) => setTimeout(r, 300))
      expect(wakes).toHaveLength(1)
    } finally {
      await here.dispose()
      await there.dispose()
      await first.dispose()
      await rival.kill()
    }
  })

  it("a survive job that ended while no host ran is adopted with the status its shim kept, and wakes its session once", async () => {
    const other = await otherHost()
    let silenced = false
    const first = newSupervisor({ host: other.host, silenced: () => silenced })
    const id = jobIdOf(await first.run("s1", request({ command: "sleep 0.3; exit 7", survive: true, run_in_background: true })))
    await recorded(first)
    // The host dies first, its records stopping where they are; the job then ends with nobody watching.
    silenced = true
    await other.kill()
    await expect
      .poll(() => /pid (\d+)/.exec(first.list())?.[1] !== undefined && !isAlive(Number(/pid (\d+)/.exec(first.list())?.[1])), { timeout: 5_000 })
      .toBe(true)
    // Restored as soon as the shell is gone: its shim has kept its status by then, or is about to (the watch waits).
    const next = newSupervisor({ sessionIsIdle: async () => true })
    try {
      const outcome = await next.restore(store.repository)
      expect(outcome.adopted, JSON.stringify(outcome)).toEqual([id])
      expect(outcome.orphaned).toEqual([])
      await expect.poll(() => wakes.length, { timeout: 5_000 }).toBe(1)
      expect(wakes[0]?.text).toMatch(new RegExp(`^\\[forge:job-complete\\] Job ${id} finished: exited with exit code 7`))
      await expect
        .poll(async () => (await store.repository.listTransitions({ instanceId: id })).map((t) => t.event))
        .toEqual(["xstate.init", "job.spawned", "job.adopt", "job.exit", "job.wake.delivered"])
    } finally {
      await next.dispose()
      await first.dispose()
    }
  })

  it("the next host takes over from a host that is gone: survive job adopted with its owner, escaped job orphaned, results remembered", async () => {
    const other = await otherHost()
    let silenced = false
    const firstLedger = new JobLedger(new SqliteLedgerStore(store.connection))
    const first = newSupervisor({ host: other.host, ledger: firstLedger, silenced: () => silenced })
    const survivor = jobIdOf(await first.run("sub", request({ command: "sleep 30", survive: true, run_in_background: true })))
    expect(await first.handoff(survivor, "root")).toContain("now belongs to session root")
    const escaped = jobIdOf(await first.run("s1", request({ command: "sleep 30", run_in_background: true })))
    const escapedPid = Number(new RegExp(`${escaped} \\[earlyReturned\\] pid (\\d+)`).exec(first.list())?.[1])
    const consumed = jobIdOf(await first.run("s1", request({ command: "echo done" })))
    const gone = jobIdOf(await first.run("s1", request({ command: "sleep 30", run_in_background: true })))
    await first.kill(gone)
    await first.sessionDeleted("nobody")
    firstLedger.append({ at: clock.now(), kind: "kill-survivors", jobId: gone, sessionId: "s1", command: "sleep 30", message: "the first host's last words" })
    await firstLedger.flush()
    await recorded(first)
    // The first host dies without a word: its records stop here. (Its jobs are children of this test process, so
    // its fenced job outlives it: an escapee, as when a fence failed.)
    silenced = true
    await other.kill()
    const next = newSupervisor()
    try {
      const outcome = await next.restore(store.repository)
      expect(outcome).toEqual({ adopted: [survivor], takenOver: [], orphaned: [escaped], elsewhere: [], problems: [] })
      expect(isAlive(escapedPid)).toBe(false)
      const entries = await ledger.entries()
      expect(entries.map((e) => `${e.kind} ${e.jobId}`)).toEqual([`kill-survivors ${gone}`, `adopted ${survivor}`, `orphaned ${escaped}`])
      expect(entries.at(-1)?.message).toMatch(/escaped its fence and was killed/)
      // The handoff outlived the host: the adopted job is the root session's, and the host it runs under is this one.
      expect(next.list("root")).toMatch(new RegExp(`${survivor} \\[earlyReturned, previous-run\\]`))
      expect(next.list("sub")).toBe("no jobs")
      await expect.poll(async () => (await store.repository.getSnapshot("job", survivor))?.snapshot).toMatchObject({ context: { host, previousRun: true } })
      expect(await next.poll(consumed)).toMatch(/already consumed/)
      expect(await next.poll(escaped)).toMatch(/already consumed/)
      // The adopted job is watched: once it is killed its end is seen and its record turns final.
      expect(await next.kill(survivor)).toContain("killed its whole process tree")
      await recorded(next)
      expect((await store.repository.getSnapshot("job", survivor))?.state).toBe("killed")
      expect((await store.repository.getSnapshot("job", escaped))?.state).toBe("orphaned")
      // One row per change of state: the restore itself is none.
      const events = (await store.repository.listTransitions({ machineId: "job", instanceId: survivor })).map((t) => t.event)
      expect(events).toEqual(["xstate.init", "job.spawned", "job.adopt", "job.kill"])
    } finally {
      await next.dispose()
      await first.dispose()
    }
  })
})
