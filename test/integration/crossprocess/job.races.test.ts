// Issue 8, "one truth across processes", for jobs: when the opencode process that ran survive jobs dies, the
// processes that start next claim each of its jobs in one write transaction, so exactly one of them adopts each job
// (watches it, may kill it, reports its end) and exactly one delivers a completion it still owed. Real processes: a
// host child starts the jobs and is SIGKILLed; two children then restore at the same moment.
import { rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { isAlive } from "../../../adapters/process/proc.table"
import { stateOf, transitionsOf } from "./database.read"
import { type RuntimeProcess, useSharedWorkspace } from "./two.runtimes"

const ITERATIONS = 6
const SURVIVORS = 8

function pair(runtimes: RuntimeProcess[]): [RuntimeProcess, RuntimeProcess] {
  const [a, b] = runtimes
  if (a === undefined || b === undefined) throw new Error("expected two runtimes")
  return [a, b]
}

const pidsOf = (listing: string): number[] => [...listing.matchAll(/pid (\d+)/g)].map((m) => Number(m[1]))

describe("a dead host's jobs, restored by two processes at once", () => {
  const ws = useSharedWorkspace()
  // The children's job logs go to the OS temp folder (this run's private one), as opencode's would.
  afterAll(() => rmSync(path.join(tmpdir(), "forgecharts"), { recursive: true, force: true }))

  it(`each survive job is adopted exactly once and each owed wake delivered once (${ITERATIONS} rounds of ${SURVIVORS} jobs)`, async () => {
    for (let round = 1; round <= ITERATIONS; round++) {
      const session = `s${round}`
      // The host runs survive jobs, and one job that finishes while its session is busy: its wake stays owed.
      const [host] = await ws.startWith({ sessions: "busy" }, `host-${round}`)
      if (host === undefined) throw new Error("no host")
      const survivors: string[] = []
      for (let i = 0; i < SURVIVORS; i++) survivors.push(await host.call("jobStart", { session, command: "sleep 60", survive: true }))
      // One survivor was handed off to the root session: whoever adopts it must know.
      const root = `root${round}`
      const [handedOff] = survivors
      if (handedOff === undefined) throw new Error("no survivor")
      await host.call("jobHandoff", { jobId: handedOff, root })
      const owed = await host.call("jobStart", { session, command: "echo finished", survive: false })
      // Recorded, not only decided: a crash loses what was not committed yet.
      await expect.poll(() => stateOf(ws.dir, "job", owed), { timeout: 10_000 }).toBe("exited.wakePending")
      const pids = pidsOf(await host.call("jobList", {})).filter((pid) => isAlive(pid))
      expect(pids, "the survivors run").toHaveLength(SURVIVORS)
      await host.crash()

      const [a, b] = pair(await ws.startWith({ sessions: "idle" }, `a-${round}`, `b-${round}`))
      const [ra, rb] = await Promise.all([a.call("jobRestore", {}), b.call("jobRestore", {})])
      try {
        const adopted = [...ra.adopted, ...rb.adopted]
        expect(adopted.sort(), `round ${round}: every survivor adopted`).toEqual([...survivors].sort())
        expect(
          ra.adopted.filter((id) => rb.adopted.includes(id)),
          `round ${round}: none adopted twice`,
        ).toEqual([])
        // Earlier rounds' finished jobs, left unread by processes that have ended since, are taken over too: once.
        const takenOver = [...ra.takenOver, ...rb.takenOver]
        expect(takenOver, `round ${round}: the owed completion taken over`).toContain(owed)
        expect(new Set(takenOver).size, `round ${round}: nothing taken over twice`).toBe(takenOver.length)
        expect([...ra.orphaned, ...rb.orphaned, ...ra.problems, ...rb.problems]).toEqual([])
        const adopter = ra.adopted.includes(handedOff) ? a : b
        expect(await adopter.call("jobList", { session: root }), `round ${round}: the handoff survives the race`).toContain(handedOff)
        const log = await transitionsOf(ws.dir, "job")
        for (const id of [...survivors, owed]) {
          expect(
            log.filter((t) => t.instanceId === id && t.event === "job.adopt"),
            `${id}: one claim recorded`,
          ).toHaveLength(1)
        }
        // The wake goes out from the process that took the job over, and from no other.
        await expect.poll(async () => (await a.call("wakes", {})).length + (await b.call("wakes", {})).length, { timeout: 5_000 }).toBe(1)
        await new Promise((resolve) => setTimeout(resolve, 300))
        const wakes = [...(await a.call("wakes", {})), ...(await b.call("wakes", {}))]
        expect(wakes.map((w) => w.session)).toEqual([session])
        expect(wakes[0]?.text).toContain(owed)
      } finally {
        // Each survivor is killed by the process that adopted it: the other one refuses (it is not its job).
        for (const id of ra.adopted) await a.call("jobKill", { jobId: id })
        for (const id of rb.adopted) await b.call("jobKill", { jobId: id })
        await Promise.all([a.stop(), b.stop()])
      }
      for (const pid of pids) expect(isAlive(pid), `survivor pid ${pid} killed by its adopter`).toBe(false)
    }
  }, 180_000)
})
