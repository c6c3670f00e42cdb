// The watchdog wired into the plugin's hooks over a real runtime: only calls that pass every gate are timed, only
// the forge family's builtin shell is stamped, and the watch ends with the call. The locator and killer are the
// stand-ins of the unit tests (no process is touched here); the ledger is the in-memory one.
import path from "node:path"
import type { Hooks, PluginInput } from "@opencode-ai/plugin"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { createForgeHooks } from "../../../adapters/opencode/forge.hooks"
import { type ForgeOptions, defaultForgeOptions } from "../../../services/config/forge.options"
import { WATCHDOG_MARK_VAR } from "../../../services/watchdog/watchdog.ports"
import { type HostJobs, createHostJobs } from "../../../src/job/job.lazy"
import { ready } from "../../../adapters/opencode/lazy"
import type { ComposedRuntime } from "../../../src/runtime"
import { harness } from "../../unit/watchdog/watchdog.fakes"
import { PLAN_BODY, memoryLogger, openRuntime, tempWorkspace } from "../plan/plan.helpers"
import { testFragments } from "../opencode/test.fragments"

type Hook<K extends keyof Hooks> = NonNullable<Hooks[K]>

const keepShell: ForgeOptions = { ...defaultForgeOptions, jobs: { ...defaultForgeOptions.jobs, keepBuiltinShell: true } }

describe("forge hooks with the watchdog", () => {
  let ws: ReturnType<typeof tempWorkspace>
  let runtime: ComposedRuntime | undefined
  let hostJobs: HostJobs
  let h: ReturnType<typeof harness>
  let hooks: Hooks

  const setup = async (options: ForgeOptions) => {
    const client = { session: { get: async () => ({ data: undefined }) } } as unknown as PluginInput["client"]
    const log = memoryLogger()
    hostJobs = createHostJobs({ client, log, clock: ws.clock, logDir: path.join(ws.dir, "job-logs"), repository: async () => runtime?.repository })
    hooks = createForgeHooks({
      client,
      log,
      options,
      openRuntime: async () => (runtime = await openRuntime(ws.dir, ws.clock)),
      fragments: testFragments({ runtime: () => runtime, jobs: hostJobs, workspace: ws.dir, watchdog: ready(h.service) }),
    })
    await hooks.config?.({} as never)
  }
  const speak = (sessionID: string, agent: string) => (hooks["chat.params"] as Hook<"chat.params">)({ sessionID, agent } as never, {} as never)
  const toolBefore = (sessionID: string, callID: string, tool = "bash") =>
    (hooks["tool.execute.before"] as Hook<"tool.execute.before">)({ tool, sessionID, callID }, { args: { command: "sleep 300" } })
  const shellEnv = async (sessionID: string, callID: string) => {
    const output = { env: {} as Record<string, string> }
    await (hooks["shell.env"] as Hook<"shell.env">)({ cwd: ws.dir, sessionID, callID }, output)
    return output.env
  }
  const after = (sessionID: string, callID: string) =>
    (hooks["tool.execute.after"] as Hook<"tool.execute.after">)({ tool: "bash", sessionID, callID, args: {} }, { title: "", output: "", metadata: {} })

  beforeEach(() => {
    ws = tempWorkspace()
    runtime = undefined
    h = harness()
  })
  afterEach(async () => {
    await hooks.dispose?.()
    hostJobs.uninstall()
    ws.cleanup()
  })

  it("a forge bash call with the builtin shell kept: stamped, timed, and over when it returns", async () => {
    await setup(keepShell)
    await speak("ses_f", "forge")
    await toolBefore("ses_f", "call_1")
    expect(await shellEnv("ses_f", "call_1")).toEqual({ [WATCHDOG_MARK_VAR]: "call_1" })
    expect(h.service.watchOf("call_1")).toMatchObject({ cwd: ws.dir, command: "sleep 300", place: "timing" })
    await after("ses_f", "call_1")
    expect(h.service.list()).toEqual([])
  })

  it("a call refused by a gate is never timed: the plan's draft write-ban, or the belt without the builtin shell", async () => {
    await setup(keepShell)
    await speak("ses_f", "forge")
    await toolBefore("ses_f", "warmup", "read")
    await runtime?.plans.write("ses_f", PLAN_BODY)
    await expect(toolBefore("ses_f", "call_banned")).rejects.toThrow(/draft write-ban/)
    expect(h.service.list()).toEqual([])
    await hooks.dispose?.()
    hostJobs.uninstall()

    h = harness()
    await setup(defaultForgeOptions)
    await speak("ses_g", "forge")
    await expect(toolBefore("ses_g", "call_belt")).rejects.toThrow(/forge_shell/)
    expect(h.service.list()).toEqual([])
  })

  it("other agents' shells carry no marker and are not timed", async () => {
    await setup(keepShell)
    await speak("ses_b", "build")
    await toolBefore("ses_b", "call_2")
    expect(await shellEnv("ses_b", "call_2")).toEqual({})
    expect(h.service.list()).toEqual([])
  })

  it("dispose stops the watchdog with the plugin", async () => {
    await setup(keepShell)
    await speak("ses_f", "forge")
    await toolBefore("ses_f", "call_3")
    expect(h.ticker.live()).toHaveLength(1)
    await hooks.dispose?.()
    expect(h.ticker.live()).toHaveLength(0)
    expect(h.service.list()).toEqual([])
  })
})
