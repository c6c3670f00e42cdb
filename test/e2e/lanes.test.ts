// The lanes that decide how many scenarios run at once on a machine, in a lane folder of the test's own.
import { spawnSync } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { laneCount, withLane } from "./e2e.lanes"

const roots: string[] = []
afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true })
})

function laneRoot(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "forge-lanes-"))
  roots.push(root)
  return root
}

/** A promise and the function that settles it. */
function gate(): { opened: Promise<void>; open(): void } {
  let open: () => void = () => {}
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { opened, open }
}

describe("lanes", () => {
  it("runs as many callers at once as there are lanes, the others in the order they asked", async () => {
    const root = laneRoot()
    const events: string[] = []
    const first = gate()
    const second = gate()
    const run = (name: string, hold: Promise<void>) =>
      withLane(
        async (lane) => {
          events.push(`${name} in ${lane}`)
          await hold
          events.push(`${name} out`)
        },
        { lanes: 2, root },
      )
    const a = run("a", first.opened)
    const b = run("b", second.opened)
    const c = run("c", Promise.resolve())
    const d = run("d", Promise.resolve())
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(events).toEqual(["a in 1", "b in 2"])
    expect(fs.readFileSync(path.join(root, "forgecharts-e2e.lane-1", "pid"), "utf8")).toBe(String(process.pid))
    second.open()
    await Promise.all([b, c, d])
    // While a holds lane 1, c and d take lane 2 in turn, c first: it asked first.
    expect(events).toEqual(["a in 1", "b in 2", "b out", "c in 2", "c out", "d in 2", "d out"])
    first.open()
    await a
    expect(events.at(-1)).toBe("a out")
    expect(fs.readdirSync(root)).toEqual([])
  })

  it("takes over a lane whose owner is gone, and waits for one whose owner lives", async () => {
    const root = laneRoot()
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout
    fs.mkdirSync(path.join(root, "forgecharts-e2e.lane-1"))
    fs.writeFileSync(path.join(root, "forgecharts-e2e.lane-1", "pid"), dead)
    expect(await withLane(async (lane) => lane, { lanes: 1, root })).toBe(1)
    fs.mkdirSync(path.join(root, "forgecharts-e2e.lane-1"))
    fs.writeFileSync(path.join(root, "forgecharts-e2e.lane-1", "pid"), String(process.ppid))
    const waiting = withLane(async (lane) => lane, { lanes: 1, root })
    const late = await Promise.race([waiting.then(() => "ran"), new Promise((resolve) => setTimeout(() => resolve("waiting"), 1_500))])
    expect(late, "a live owner's lane is never taken").toBe("waiting")
    fs.rmSync(path.join(root, "forgecharts-e2e.lane-1"), { recursive: true })
    expect(await waiting).toBe(1)
  })

  it("reads FORGE_E2E_LANES: a whole number from 1 to 8, else an error naming it", () => {
    expect(laneCount({})).toBe(2)
    expect(laneCount({ FORGE_E2E_LANES: "1" })).toBe(1)
    expect(laneCount({ FORGE_E2E_LANES: "8" })).toBe(8)
    for (const bad of ["0", "9", "two", "1.5", " 2"]) expect(() => laneCount({ FORGE_E2E_LANES: bad })).toThrow(`FORGE_E2E_LANES=${JSON.stringify(bad)}`)
  })
})
