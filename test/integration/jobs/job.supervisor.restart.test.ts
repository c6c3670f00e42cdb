// What a host's supervisor leaves in the workspace database, and what a restart does with it while its owner still
// lives: another host's jobs, or another plugin instance's in this process, are left alone; a released instance's are
// taken over.
import { beforeEach, describe, expect, it } from "vitest"
import { currentHost, releaseHost } from "../../../adapters/process/job.hosts"
import { isAlive } from "../../../adapters/process/proc.table"
import { createKeyValueStorage } from "../../../adapters/storage/keyvalue.storage"
import type { LifecycleStore } from "../../../adapters/storage/lifecycle.store"
import { JOB_REGISTRY_NAME } from "../../../services/job/job.registry"
import { hostScopedName } from "../../../services/job/job.stores"
import type { JobSupervisor } from "../../../services/job/job.service"
import { jobIdOf, otherHost, supervisorWorld } from "./job.supervisor.helpers"

describe("job supervisor with real processes", () => {
  const world = supervisorWorld()
  const { host, request, newSupervisor, recorded } = world
  let supervisor: JobSupervisor
  let store: LifecycleStore
  // The running test's world (set up by supervisorWorld's beforeEach, which runs first), under the names the tests use.
  beforeEach(() => {
    ;({ supervisor, store } = world.current())
  })

  it("records every job transition in the shared lifecycle tables", async () => {
    const id = jobIdOf(await supervisor.run("s1", request({ command: "echo hi" })))
    await recorded(supervisor)
    const log = await store.repository.listTransitions({ machineId: "job", instanceId: id })
    expect(log.map((t) => `${t.from}|${t.event}|${t.to}`)).toEqual(["(none)|xstate.init|starting", "starting|job.spawned|running", "running|job.exit|cleared"])
    expect((await store.repository.getSnapshot("job", id))?.terminal).toBe(true)
  })

  it("dispose leaves what it recorded in the database: a survive job's registration and its handoff", async () => {
    const id = jobIdOf(await supervisor.run("sub", request({ command: "sleep 30", survive: true, run_in_background: true })))
    const pid = Number(/pid (\d+)/.exec(supervisor.list())?.[1])
    await supervisor.handoff(id, "root")
    await supervisor.dispose()
    try {
      // Right after dispose, with no time for a throttled write: the item is already there.
      const item = await createKeyValueStorage(store.connection).getItem(hostScopedName(JOB_REGISTRY_NAME, host))
      expect(JSON.parse(item ?? "null")).toMatchObject({ context: { jobs: { [id]: { owner: "root", survive: true } } } })
      expect(isAlive(pid)).toBe(true)
    } finally {
      process.kill(-pid, "SIGKILL")
    }
  })

  it("a start while another host of the workspace still runs leaves that host's jobs alone", async () => {
    const other = await otherHost()
    let silenced = false
    const first = newSupervisor({ host: other.host, silenced: () => silenced })
    try {
      const id = jobIdOf(await first.run("s1", request({ command: "sleep 30", run_in_background: true })))
      const pid = Number(/pid (\d+)/.exec(first.list())?.[1])
      await recorded(first)
      const next = newSupervisor()
      const outcome = await next.restore(store.repository)
      expect(outcome).toEqual({ adopted: [], takenOver: [], orphaned: [], elsewhere: [id], problems: [] })
      expect(isAlive(pid)).toBe(true)
      expect(next.list()).toBe("no jobs")
      expect((await store.repository.getSnapshot("job", id))?.state).toBe("earlyReturned")
      await next.dispose()
      expect(isAlive(pid)).toBe(true)
    } finally {
      silenced = true
      await first.dispose()
      await other.kill()
    }
  })

  it("a second plugin instance of the same process on the workspace leaves the first one's jobs alone", async () => {
    const id = jobIdOf(await supervisor.run("s1", request({ command: "sleep 30", run_in_background: true })))
    const pid = Number(/pid (\d+)/.exec(supervisor.list())?.[1])
    const sibling = newSupervisor({ host: currentHost() })
    try {
      expect(await sibling.restore(store.repository)).toEqual({ adopted: [], takenOver: [], orphaned: [], elsewhere: [id], problems: [] })
      expect(isAlive(pid)).toBe(true)
      expect(sibling.list()).toBe("no jobs")
    } finally {
      await sibling.dispose()
    }
    expect(isAlive(pid)).toBe(true)
    await supervisor.kill(id)
  })

  it("the next plugin instance of the same process takes over what a released (disposed) instance left", async () => {
    const first = currentHost()
    const firstSupervisor = newSupervisor({ host: first })
    const id = jobIdOf(await firstSupervisor.run("s1", request({ command: "sleep 30", survive: true, run_in_background: true })))
    const pid = Number(/pid (\d+)/.exec(firstSupervisor.list())?.[1])
    await firstSupervisor.dispose()
    releaseHost(first)
    const next = newSupervisor({ host: currentHost() })
    try {
      expect(await next.restore(store.repository)).toEqual({ adopted: [id], takenOver: [], orphaned: [], elsewhere: [], problems: [] })
      expect(next.list()).toMatch(new RegExp(`${id} \\[earlyReturned, previous-run\\]`))
    } finally {
      await next.kill(id)
      await next.dispose()
    }
    expect(isAlive(pid)).toBe(false)
  })

  it("an adopted survive job's exit code is known: its shim kept the shell's status beside the log", async () => {
    const first = currentHost()
    const firstSupervisor = newSupervisor({ host: first })
    const id = jobIdOf(await firstSupervisor.run("s1", request({ command: "sleep 2; exit 7", survive: true, run_in_background: true })))
    await firstSupervisor.dispose()
    releaseHost(first)
    const next = newSupervisor({ host: currentHost() })
    try {
      expect((await next.restore(store.repository)).adopted).toEqual([id])
      // This host's own view (the first instance of this process still hears the exit from its pipe and records it too).
      await expect.poll(() => next.list(), { timeout: 15_000 }).toMatch(new RegExp(`${id} \\[exited`))
      expect(await next.poll(id)).toContain("exited with exit code 7")
    } finally {
      await next.dispose()
    }
  })
})
