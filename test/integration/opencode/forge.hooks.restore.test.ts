import type { Hooks, PluginInput } from "@opencode-ai/plugin"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import path from "node:path"
import { createForgeHooks } from "../../../adapters/opencode/forge.hooks"
import { defaultForgeOptions } from "../../../services/config/forge.options"
import { type HostJobs, createHostJobs } from "../../../src/job/job.lazy"
import type { ComposedRuntime } from "../../../src/runtime"
import { workspaceStoredState } from "../../../src/workspace.state"
import { PLAN_BODY, memoryLogger, openRuntime, tempWorkspace } from "../plan/plan.helpers"
import { testFragments } from "./test.fragments"

// Opening the database and restoring must never delay a session that touches no lifecycle. The runtime here is real
// (SQLite, documents, a draft restored from an earlier host); only its opening is held back by a latch, so "still
// restoring" is a state the test controls instead of a race it hopes to win.

type BeforeHook = NonNullable<Hooks["tool.execute.before"]>

/** Generous: it only tells a call that returned from one that waits for the latch. */
const RETURNED_WITHIN_MS = 5_000

function created(id: string, parentID?: string): Parameters<NonNullable<Hooks["event"]>>[0] {
  return { event: { type: "session.created", properties: { sessionID: id, info: { id, parentID } } } as never }
}

/** Whether a call has settled (resolved or refused) so far. */
function tracked(call: Promise<unknown>): { settled(): boolean } {
  let settled = false
  call.then(
    () => (settled = true),
    () => (settled = true),
  )
  return { settled: () => settled }
}

/** "returned" when the call settles (resolved or refused) before the bound, "waiting" when it does not. */
async function settlesSoon(call: Promise<unknown>): Promise<"returned" | "waiting"> {
  let timer: NodeJS.Timeout | undefined
  const waiting = new Promise<"waiting">((resolve) => (timer = setTimeout(() => resolve("waiting"), RETURNED_WITHIN_MS)))
  const outcome = await Promise.race([
    call.then(
      () => "returned" as const,
      () => "returned" as const,
    ),
    waiting,
  ])
  clearTimeout(timer)
  return outcome
}

describe("forge hooks while the runtime is still restoring", () => {
  let ws: ReturnType<typeof tempWorkspace>
  let runtime: ComposedRuntime | undefined
  let hooks: Hooks
  let hostJobs: HostJobs
  let release: () => void
  const toolCall = (sessionID: string, tool: string) => (hooks["tool.execute.before"] as BeforeHook)({ tool, sessionID, callID: "c" }, { args: {} })

  beforeEach(async () => {
    ws = tempWorkspace()
    runtime = undefined
    // A host before this one left a draft in session "earlier".
    const writer = await openRuntime(ws.dir, ws.clock)
    await writer.plans.write("earlier", PLAN_BODY)
    await writer.close()
    const latch = new Promise<void>((resolve) => (release = resolve))
    const client = { session: { get: async () => ({ data: undefined }) } } as unknown as PluginInput["client"]
    const log = memoryLogger()
    hostJobs = createHostJobs({ client, log, clock: ws.clock, logDir: path.join(ws.dir, "job-logs"), repository: async () => runtime?.repository })
    hooks = createForgeHooks({
      client,
      log,
      options: defaultForgeOptions,
      openRuntime: async () => {
        await latch
        runtime = await openRuntime(ws.dir, ws.clock)
        return runtime
      },
      fragments: testFragments({ runtime: () => runtime, jobs: hostJobs, workspace: ws.dir }),
      // Stamped now, after the earlier host closed: nobody writes the workspace while this host restores.
      storedState: workspaceStoredState(ws.dir),
    })
  })
  afterEach(async () => {
    release()
    await hooks.dispose?.()
    hostJobs.uninstall()
    ws.cleanup()
  })

  it("a session created in this host calls tools without waiting; a restored draft still bans its session's writes", async () => {
    await hooks.config?.({} as never)
    await hooks.event?.(created("fresh"))
    await hooks.event?.(created("fresh_child", "fresh"))
    const earlier = toolCall("earlier", "bash")
    const earlierCall = tracked(earlier)

    // Still restoring: the new session and its subagent are not held up, and nothing of the runtime was needed.
    expect(await settlesSoon(toolCall("fresh", "bash"))).toBe("returned")
    expect(await settlesSoon(toolCall("fresh_child", "write"))).toBe("returned")
    expect(runtime).toBeUndefined()
    // A session from before this host may hold a restored lifecycle: its call waits for the restore, then is refused.
    expect(earlierCall.settled()).toBe(false)
    release()
    await expect(earlier).rejects.toThrow(/draft write-ban/)

    // Once open, the new session's gate is the runtime's like any other.
    if (runtime === undefined) throw new Error("the runtime did not open after the latch was released")
    await runtime.plans.write("fresh", PLAN_BODY)
    await expect(toolCall("fresh", "bash")).rejects.toThrow(/draft write-ban/)
    await expect(toolCall("fresh_child", "edit")).rejects.toThrow(/draft write-ban/)
  })

  it("a session the plugin never saw created waits for the restore", async () => {
    await hooks.config?.({} as never)
    const unknown = toolCall("unseen", "read")
    const call = tracked(unknown)
    await new Promise((resolve) => setImmediate(resolve))
    expect(call.settled()).toBe(false)
    release()
    await expect(unknown).resolves.toBeUndefined()
  })
})
