import type { Hooks, PluginInput } from "@opencode-ai/plugin"
import { rmSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { createForgeHooks } from "../../../adapters/opencode/forge.hooks"
import type { ComposedRuntime } from "../../../src/runtime"
import { databasePath } from "../../../adapters/storage/database.path"
import { defaultForgeOptions } from "../../../services/config/forge.options"
import { type HostJobs, createHostJobs } from "../../../src/job/job.lazy"
import { testFragments } from "./test.fragments"
import { PLAN_BODY, memoryLogger, openRuntime, tempWorkspace } from "../plan/plan.helpers"
import { defined } from "../../defined"
import { callRaw } from "./tool.context"

// The hooks over a real runtime whose database cannot be used (.opencode/forge is a file): opencode's own tools keep
// working, the readable draft still bans writes, Forge's tools and /plan answer with what is wrong and what to do.

type BeforeHook = NonNullable<Hooks["tool.execute.before"]>
type CommandHook = NonNullable<Hooks["command.execute.before"]>

const client = { session: { get: async ({ path }: { path: { id: string } }) => ({ data: { id: path.id } }) } } as unknown as PluginInput["client"]

describe("forge hooks when the database cannot be used", () => {
  let ws: ReturnType<typeof tempWorkspace>
  let hooks: Hooks
  let hostJobs: HostJobs
  let log: ReturnType<typeof memoryLogger>
  let planPath: string
  const toolBefore = (sessionID: string, tool: string) => (hooks["tool.execute.before"] as BeforeHook)({ tool, sessionID, callID: "c" }, { args: {} })
  const command = async (sessionID: string, args: string) => {
    const output = { parts: [{ type: "text", text: "template" }] as { type: string; text: string }[] }
    await (hooks["command.execute.before"] as CommandHook)({ command: "plan", sessionID, arguments: args }, output as never)
    return output.parts.map((p) => p.text).join("\n")
  }
  const runTool = (name: string, args: Record<string, unknown>, sessionID = "s1") =>
    callRaw(defined(hooks.tool?.[name], `tool ${name}`), args, {
      sessionID,
      messageID: "m",
      agent: "forge",
      directory: ws.dir,
      worktree: ws.dir,
      abort: new AbortController().signal,
      metadata: () => undefined,
      ask: async () => undefined,
    })
  const build = (open: () => Promise<ComposedRuntime>) => {
    let runtime: ComposedRuntime | undefined
    hostJobs = createHostJobs({ client, log, clock: ws.clock, logDir: path.join(ws.dir, "job-logs"), repository: async () => undefined })
    hooks = createForgeHooks({
      client,
      log,
      options: defaultForgeOptions,
      openRuntime: async () => (runtime = await open()),
      fragments: testFragments({ runtime: () => runtime, jobs: hostJobs, workspace: ws.dir }),
    })
  }

  beforeEach(async () => {
    ws = tempWorkspace()
    log = memoryLogger()
    const writer = await openRuntime(ws.dir, ws.clock)
    planPath = (await writer.plans.write("s1", PLAN_BODY)).planPath
    await writer.close()
    const folder = path.dirname(databasePath(ws.dir))
    rmSync(folder, { recursive: true, force: true })
    writeFileSync(folder, "in the way\n")
  })
  afterEach(async () => {
    await hooks.dispose?.()
    hostJobs.uninstall()
    ws.cleanup()
  })

  it("opencode's own tools run, the readable draft still bans writes, Forge's tools and /plan say what is wrong and what to do", async () => {
    build(() => openRuntime(ws.dir, ws.clock, log))
    await hooks.config?.({} as never)
    await expect(toolBefore("s1", "read")).resolves.toBeUndefined()
    await expect(toolBefore("s2", "bash")).resolves.toBeUndefined()
    await expect(toolBefore("s1", "write")).rejects.toThrow(new RegExp(`draft write-ban: plan ${planPath} is a draft`))
    const folder = path.dirname(databasePath(ws.dir))
    const trouble = new RegExp(`Forge cannot use its database .*forge\\.db: ${folder} is a file, not a folder.*To fix it: move ${folder} aside`)
    await expect(runTool("plan_read", {})).rejects.toThrow(trouble)
    await expect(runTool("plan_write", { content: PLAN_BODY }, "s2")).rejects.toThrow(trouble)
    // Jobs that end with this host need no database; one that should outlive it does.
    await expect(runTool("forge_shell", { command: "echo survive", survive: true }, "s2")).rejects.toThrow(
      /forge_shell: a survive job is refused.*To fix it: move/,
    )
    await expect(runTool("forge_shell", { command: "echo still-here" }, "s2")).resolves.toMatch(/still-here/)
    for (const args of ["", "resume", "fix the bug"]) {
      const text = await command("s1", args)
      expect(text).toMatch(trouble)
      expect(text).toMatch(/^\[forge:plan\] The user ran \/plan, but Forge could not carry it out/)
    }
  })

  it("a runtime that fails to open for any other reason never blocks opencode's tools, and /plan answers instead of failing", async () => {
    build(() => Promise.reject(new Error("boom: no SQLite here")))
    await hooks.config?.({} as never)
    await expect(toolBefore("s1", "read")).resolves.toBeUndefined()
    await expect(toolBefore("s1", "write")).resolves.toBeUndefined()
    expect(await command("s1", "")).toMatch(/\/plan failed: boom: no SQLite here/)
    expect(log.lines.join("\n")).toMatch(/error: could not open the Forge runtime: boom/)
  })
})
