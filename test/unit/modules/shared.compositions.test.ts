import { describe, expect, it } from "vitest"
import type { ForgeComposition } from "../../../src/composition"
import { acquireComposition } from "../../../src/shared.compositions"

// The plugin instances of one process on one workspace share one composition (opencode's TUI makes two instances for
// one directory): it is built once, and closed once, by the last instance to go.

function fake(closed: string[], name: string): ForgeComposition {
  return {
    open: async () => ({ workspace: name, close: async () => {} }),
    repository: async () => undefined,
    handle: () => undefined,
    close: async () => {
      closed.push(name)
    },
  }
}

describe("compositions shared by a process's plugin instances", () => {
  it("builds one per workspace, and the last release closes it", async () => {
    const closed: string[] = []
    let built = 0
    const create = (name: string) => async () => {
      built += 1
      return fake(closed, name)
    }
    const first = acquireComposition("/w/a", create("a1"))
    const second = acquireComposition("/w/a", create("a2"))
    const other = acquireComposition("/w/b", create("b1"))
    expect(await second.composition).toBe(await first.composition)
    expect(await other.composition).not.toBe(await first.composition)
    expect(built).toBe(2)
    await first.release()
    await first.release()
    expect(closed, "still held by the other instance (a second release of one hold counts once)").toEqual([])
    await second.release()
    expect(closed).toEqual(["a1"])
    await other.release()
    expect(closed).toEqual(["a1", "b1"])
    const again = acquireComposition("/w/a", create("a3"))
    expect(await again.composition, "gone: the next instance builds a new one").not.toBe(await first.composition)
    await again.release()
  })

  it("keeps no composition that failed to build, and its hold's release touches the next one", async () => {
    const failed = acquireComposition("/w/broken", async () => Promise.reject(new Error("no database")))
    await expect(failed.composition).rejects.toThrow("no database")
    await new Promise((resolve) => setImmediate(resolve))
    const closed: string[] = []
    const fixed = acquireComposition("/w/broken", async () => fake(closed, "fixed"))
    await failed.release()
    expect(closed, "the failed hold's release leaves the new composition alone").toEqual([])
    expect(await (await fixed.composition).open()).toMatchObject({ workspace: "fixed" })
    await fixed.release()
    expect(closed).toEqual(["fixed"])
  })
})
