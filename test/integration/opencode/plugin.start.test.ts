import { existsSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import type { Hooks, PluginInput } from "@opencode-ai/plugin"
import { afterEach, describe, expect, it, vi } from "vitest"
import { TEST_GOAL_DEBOUNCE_ENV, TEST_RESTORE_DELAY_ENV } from "../../../services/config/test.timings"
import plugin from "../../../src/server"
import { PLAN_BODY, openRuntime, tempWorkspace } from "../plan/plan.helpers"
import { callRaw, toolContext } from "./tool.context"

// The real plugin entry, as opencode loads it, on a real workspace: what starting opencode costs a workspace that
// touches no lifecycle (nothing opened, nothing written), and that a lifecycle left by an earlier run still holds
// from the first call, before the background restore.

type BeforeHook = NonNullable<Hooks["tool.execute.before"]>

function recordingClient(): { client: PluginInput["client"]; logs: string[] } {
  const logs: string[] = []
  const client = {
    app: { log: async ({ body }: { body: { message: string } }) => void logs.push(body.message) },
    session: { get: async () => ({ data: undefined }) },
  }
  return { client: client as unknown as PluginInput["client"], logs }
}

function created(id: string): Parameters<NonNullable<Hooks["event"]>>[0] {
  return { event: { type: "session.created", properties: { sessionID: id, info: { id } } } as never }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe("the plugin at opencode's start", () => {
  let ws: ReturnType<typeof tempWorkspace>
  let hooks: Hooks | undefined

  const load = async () => {
    const recorded = recordingClient()
    hooks = await plugin.server({ client: recorded.client, directory: ws.dir, worktree: ws.dir } as PluginInput, {})
    return { hooks, logs: recorded.logs }
  }
  const toolCall = (h: Hooks, sessionID: string, tool: string) => (h["tool.execute.before"] as BeforeHook)({ tool, sessionID, callID: "c" }, { args: {} })

  afterEach(async () => {
    vi.unstubAllEnvs()
    await hooks?.dispose?.()
    hooks = undefined
    ws.cleanup()
    // The job logs' folder the plugin makes when its jobs are composed (this run's private temp dir).
    rmSync(path.join(tmpdir(), "forgecharts"), { recursive: true, force: true })
  })

  it("on a workspace that never used Forge, loading, configuring and every session's calls open and write nothing", async () => {
    ws = tempWorkspace()
    const { hooks } = await load()
    await hooks.config?.({} as never)
    await hooks.event?.(created("fresh"))
    await toolCall(hooks, "fresh", "bash")
    await toolCall(hooks, "from_before_this_host", "write")
    await sleep(2_000)
    expect(existsSync(path.join(ws.dir, ".opencode"))).toBe(false)
  })

  it("the first Forge tool opens the workspace: its plan is written and bans writes at once", async () => {
    ws = tempWorkspace()
    const { hooks } = await load()
    await hooks.config?.({} as never)
    await hooks.event?.(created("s1"))
    const result = await callRaw(hooks.tool?.plan_write, { content: PLAN_BODY }, toolContext("s1", ws.dir))
    expect(result).toMatch(/Plan created: \.opencode\/plan\//)
    await expect(toolCall(hooks, "s1", "bash")).rejects.toThrow(/draft write-ban/)
    expect(existsSync(path.join(ws.dir, ".opencode", "forge", "forge.db"))).toBe(true)
  })

  for (const before of [false, true])
    it(`a draft another process writes in a session this host created bans its writes at the next call (workspace ${before ? "used" : "fresh"} at load)`, async () => {
      ws = tempWorkspace()
      if (before) {
        const earlier = await openRuntime(ws.dir, ws.clock)
        await earlier.plans.write("earlier", PLAN_BODY)
        await earlier.close()
      }
      const { hooks } = await load()
      await hooks.config?.({} as never)
      await hooks.event?.(created("shared"))
      await toolCall(hooks, "shared", "write")
      // Another opencode process on the workspace, in the same session.
      const other = await openRuntime(ws.dir, ws.clock)
      try {
        await other.plans.write("shared", PLAN_BODY.replace("Fix login timeout", "Drafted elsewhere"))
        await expect(toolCall(hooks, "shared", "write")).rejects.toThrow(/draft write-ban/)
        await expect(toolCall(hooks, "shared", "forge_shell")).rejects.toThrow(/draft write-ban/)
      } finally {
        await other.close()
      }
    })

  it("a draft an earlier run left bans its session's writes from the first call, before the background restore", async () => {
    ws = tempWorkspace()
    const earlier = await openRuntime(ws.dir, ws.clock)
    await earlier.plans.write("earlier", PLAN_BODY)
    await earlier.close()
    const { hooks, logs } = await load()
    await hooks.config?.({} as never)
    expect(logs.filter((l) => l.startsWith("restored"))).toEqual([])
    await expect(toolCall(hooks, "earlier", "edit")).rejects.toThrow(/draft write-ban/)
    await expect(toolCall(hooks, "another", "edit")).resolves.toBeUndefined()
  })

  it("what an earlier run left is restored in the background once the first model request is on its way", async () => {
    ws = tempWorkspace()
    const earlier = await openRuntime(ws.dir, ws.clock)
    await earlier.plans.write("earlier", PLAN_BODY)
    await earlier.close()
    const { hooks, logs } = await load()
    await hooks.config?.({} as never)
    await sleep(1_000)
    // Not yet: opencode's own start and first turn go first.
    expect(logs.filter((l) => l.startsWith("restored"))).toEqual([])
    await hooks["chat.params"]?.({ sessionID: "fresh", agent: "build" } as never, {} as never)
    const deadline = Date.now() + 10_000
    while (!logs.some((l) => l.startsWith("restored 1 live plan")) && Date.now() < deadline) await sleep(50)
    expect(logs).toContain("restored 1 live plan(s)")
  })

  it("a host that sends no model request restores a while after start all the same", async () => {
    ws = tempWorkspace()
    const earlier = await openRuntime(ws.dir, ws.clock)
    await earlier.plans.write("earlier", PLAN_BODY)
    await earlier.close()
    const { hooks, logs } = await load()
    await hooks.config?.({} as never)
    const deadline = Date.now() + 15_000
    while (!logs.some((l) => l.startsWith("restored 1 live plan")) && Date.now() < deadline) await sleep(100)
    expect(logs).toContain("restored 1 live plan(s)")
  }, 20_000)

  it("a test's restore seam starts that restore sooner; a seam value that does not parse is ignored and logged", async () => {
    ws = tempWorkspace()
    const earlier = await openRuntime(ws.dir, ws.clock)
    await earlier.plans.write("earlier", PLAN_BODY)
    await earlier.close()
    vi.stubEnv(TEST_RESTORE_DELAY_ENV, "200")
    vi.stubEnv(TEST_GOAL_DEBOUNCE_ENV, "soon")
    const { hooks, logs } = await load()
    expect(logs).toContain(`${TEST_GOAL_DEBOUNCE_ENV}="soon" is not an integer of at least 50 ms; ignored`)
    await hooks.config?.({} as never)
    // Well before the 5 s a host without the seam waits, with no model request to hurry it.
    const deadline = Date.now() + 4_000
    while (!logs.some((l) => l.startsWith("restored 1 live plan")) && Date.now() < deadline) await sleep(50)
    expect(logs).toContain("restored 1 live plan(s)")
  })
})
