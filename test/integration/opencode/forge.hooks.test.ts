import type { Hooks, PluginInput } from "@opencode-ai/plugin"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { createForgeHooks } from "../../../adapters/opencode/forge.hooks"
import { defaultForgeOptions } from "../../../services/config/forge.options"
import { type HostJobs, createHostJobs } from "../../../src/job/job.lazy"
import type { ComposedRuntime } from "../../../src/runtime"
import { PASSING_CHECKS, PLAN_BODY, memoryLogger, openRuntime, tempWorkspace } from "../plan/plan.helpers"
import { defined } from "../../defined"
import { testFragments } from "./test.fragments"

// The hooks over a real runtime (SQLite, files). Only opencode's client is stood in for: it answers
// session look-ups from a table, as the host would.

type BeforeHook = NonNullable<Hooks["tool.execute.before"]>
type CommandHook = NonNullable<Hooks["command.execute.before"]>

function clientWith(parents: Record<string, string | undefined>, lookups: string[]): PluginInput["client"] {
  const session = {
    get: async ({ path }: { path: { id: string } }) => {
      lookups.push(path.id)
      return { data: path.id in parents ? { id: path.id, parentID: parents[path.id] } : undefined }
    },
  }
  return { session } as unknown as PluginInput["client"]
}

describe("forge hooks", () => {
  let ws: ReturnType<typeof tempWorkspace>
  let runtime: ComposedRuntime | undefined
  let hooks: Hooks
  let hostJobs: HostJobs
  const lookups: string[] = []
  const toolBefore = (sessionID: string, tool: string) => (hooks["tool.execute.before"] as BeforeHook)({ tool, sessionID, callID: "c" }, { args: {} })
  /** What the user's message shows of the last /plan turn: its text parts that are not synthetic. */
  let shown = ""
  /** Runs /plan; resolves to what the model reads of the turn: its text parts that are not ignored. */
  const command = async (sessionID: string, args: string) => {
    const output = { parts: [{ type: "text", text: "template" }] as { type: string; text: string; synthetic?: boolean; ignored?: boolean }[] }
    await (hooks["command.execute.before"] as CommandHook)({ command: "plan", sessionID, arguments: args }, output as never)
    shown = output.parts
      .filter((p) => !p.synthetic)
      .map((p) => p.text)
      .join("\n")
    return output.parts
      .filter((p) => !p.ignored)
      .map((p) => p.text)
      .join("\n")
  }

  beforeEach(async () => {
    ws = tempWorkspace()
    runtime = undefined
    lookups.length = 0
    const client = clientWith({ child_after_restart: "root", root: undefined }, lookups)
    const log = memoryLogger()
    hostJobs = createHostJobs({ client, log, clock: ws.clock, logDir: path.join(ws.dir, "job-logs"), repository: async () => runtime?.repository })
    hooks = createForgeHooks({
      client,
      log,
      options: defaultForgeOptions,
      openRuntime: async () => (runtime = await openRuntime(ws.dir, ws.clock)),
      fragments: testFragments({ runtime: () => runtime, jobs: hostJobs, workspace: ws.dir }),
    })
  })
  afterEach(async () => {
    await hooks.dispose?.()
    hostJobs.uninstall()
    ws.cleanup()
  })

  it("a draft bans writes in the session and in every subagent session of it", async () => {
    await hooks.config?.({} as never)
    await hooks.event?.({ event: { type: "session.created", properties: { sessionID: "child", info: { id: "child", parentID: "root" } } } as never })
    await hooks.event?.({ event: { type: "session.created", properties: { sessionID: "root", info: { id: "root" } } } as never })
    // A session from before this host waits for the runtime the config hook started opening (one created in this
    // host does not: forge.hooks.restore.test.ts).
    await toolBefore("other", "read")
    await defined(runtime, "the runtime the config hook opened").plans.write("root", PLAN_BODY)
    await expect(toolBefore("root", "bash")).rejects.toThrow(/draft write-ban/)
    await expect(toolBefore("child", "write")).rejects.toThrow(/draft write-ban/)
    await expect(toolBefore("child", "read")).resolves.toBeUndefined()
    await expect(toolBefore("other", "bash")).resolves.toBeUndefined()
    // Sessions learnt from events never cost a host look-up.
    expect(lookups).not.toContain("child")
    // A child the plugin never saw created (e.g. before a restart) is asked of the host once.
    await expect(toolBefore("child_after_restart", "edit")).rejects.toThrow(/draft write-ban/)
    await expect(toolBefore("child_after_restart", "edit")).rejects.toThrow(/draft write-ban/)
    expect(lookups.filter((id) => id === "child_after_restart")).toHaveLength(1)
  })

  it("/plan lists, resumes and discards as the user's own actions", async () => {
    await hooks.config?.({} as never)
    await toolBefore("s1", "read")
    expect(await command("s1", "")).toMatch(/no unfinished plans/)
    expect(shown).toBe("/plan\nThere are no unfinished plans in this workspace. Start one with /plan <task>.")
    const { planPath } = await defined(runtime, "the runtime the config hook opened").plans.write("s1", PLAN_BODY)
    // The model's instruction stays out of the user's message, which shows the list itself.
    expect(await command("s2", '""')).toContain(`${planPath} [draft] 0/2 tasks — Fix login timeout`)
    expect(shown).toBe(`/plan — unfinished plans:\n- ${planPath} [draft] 0/2 tasks — Fix login timeout`)
    const resumed = await command("s2", "resume")
    expect(resumed).toContain(`resumed ${planPath} (draft)`)
    expect(resumed).toContain("## Tasks")
    expect(shown).toBe(`/plan resume\nResumed ${planPath} (draft) in this session.`)
    expect(defined(runtime, "the runtime the config hook opened").plans.liveFor("s2")).toBe(planPath)
    expect(defined(runtime, "the runtime the config hook opened").plans.liveFor("s1")).toBeUndefined()
    const discarded = await command("s2", "discard")
    expect(discarded).toContain("Plan discarded")
    expect(shown).toBe(`/plan discard\nPlan discarded: ${planPath} is abandoned. Writes are no longer banned by it.`)
    await expect(toolBefore("s2", "bash")).resolves.toBeUndefined()
    expect(await command("s2", "discard")).toMatch(/no live plan in this session/)
    // /plan <task>: the model reads the template, the user's message shows what they typed.
    expect(await command("s2", "fix the bug")).toBe("template")
    expect(shown).toBe("/plan fix the bug")
  })

  it("a call that set the plan's document to done is told the plan stays approved, once; /plan confirm asks for the close dialog", async () => {
    type AfterHook = NonNullable<Hooks["tool.execute.after"]>
    const toolAfter = async (tool: string) => {
      const output = { title: "", output: "ran", metadata: {} }
      await (hooks["tool.execute.after"] as AfterHook)({ tool, sessionID: "s1", callID: "c", args: {} }, output)
      return output.output
    }
    await hooks.config?.({} as never)
    await toolBefore("s1", "read")
    const rt = defined(runtime, "the runtime the config hook opened")
    const { planPath } = await rt.plans.write("s1", PLAN_BODY)
    await rt.plans.approve("s1", async () => true)
    const file = path.join(ws.dir, planPath)
    writeFileSync(file, readFileSync(file, "utf8").replace("status: approved", "status: done"))
    expect(await toolAfter("forge_shell")).toContain(`[forge] The document of plan ${planPath} says status: done, but the plan stays approved`)
    expect(await toolAfter("read")).toBe("ran")
    expect(rt.registry.snapshot(planPath)?.value).toEqual({ approved: "working" })
    expect(await command("s1", "")).toContain(`${planPath} [approved; the document says done: confirm? /plan confirm]`)
    expect(await command("s1", "confirm")).toContain("Call plan_close now")
    expect(shown).toContain(`/plan confirm\nThe document of ${planPath} says done; the plan is approved. Confirm in the close dialog`)
  })

  it("agent.forge.disable stands Forge down: no gate, no command rewrite, no restore", async () => {
    const writer = await openRuntime(ws.dir, ws.clock)
    await writer.plans.write("s1", PLAN_BODY)
    await writer.close()
    const cfg = { agent: { forge: { disable: true } } }
    await hooks.config?.(cfg as never)
    await expect(toolBefore("s1", "bash")).resolves.toBeUndefined()
    expect(await command("s1", "")).toBe("template")
    expect(shown).toBe("template")
    expect(runtime).toBeUndefined()
  })

  it("a user's own command.plan is left alone", async () => {
    await hooks.config?.({ command: { plan: { template: "mine" } } } as never)
    expect(await command("s1", "")).toBe("template")
  })

  it("what Forge's tools showed on their line never reaches the model; other tools' calls are left as they are", async () => {
    const transform = defined(hooks["experimental.chat.messages.transform"], "the messages transform hook")
    const approve = { plan: "Fix login timeout", path: ".opencode/plan/x.md", tasks: 2 }
    const shell = { command: "npm test", dir: "/p", state: "exited with exit code 0" }
    const bash = { command: "ls", extra: true }
    const tool = (name: string, input: Record<string, unknown>) => ({ type: "tool", tool: name, state: { status: "completed", input } })
    await transform({}, { messages: [{ info: {}, parts: [tool("plan_approve", approve), tool("forge_shell", shell), tool("bash", bash)] }] } as never)
    expect(approve).toEqual({})
    expect(shell).toEqual({ command: "npm test" })
    expect(bash).toEqual({ command: "ls", extra: true })
  })

  it("a plan or shell call's line names what it acts on as the call starts: the plan, its counts, each criterion's evidence, where a command runs", async () => {
    await hooks.config?.({} as never)
    await hooks.event?.({ event: { type: "session.created", properties: { sessionID: "root", info: { id: "root" } } } as never })
    await toolBefore("root", "read")
    const rt = defined(runtime, "the runtime the config hook opened")
    const startCall = (tool: string, args: Record<string, unknown>) =>
      (hooks["tool.execute.before"] as BeforeHook)({ tool, sessionID: "root", callID: "c" }, { args })
    // A new plan: the title it will be stored under, then the plan's text folded to its size and first lines (the
    // text itself waits under an object key, which the line leaves out).
    const write: Record<string, unknown> = { content: PLAN_BODY }
    await startCall("plan_write", write)
    expect(Object.entries(write)).toEqual([
      ["plan", "Fix login timeout"],
      ["status", "new draft"],
      ["content", expect.stringMatching(/^16 lines, \d+ bytes: # Fix login timeout ⏎ ## Goal ⏎ Sessions survive 40 s of idle\. ⏎ …$/)],
      ["forge:content", { text: PLAN_BODY }],
    ])
    const { planPath } = await rt.plans.write("root", PLAN_BODY)
    await rt.queries.summaryOf(planPath)
    const approve: Record<string, unknown> = {}
    await startCall("plan_approve", approve)
    expect(approve).toEqual({ plan: "Fix login timeout", path: planPath, tasks: 2, criteria: 2 })
    await rt.plans.approve("root", async () => true)
    const close: Record<string, unknown> = { checks: [...PASSING_CHECKS, { criterion: "odd", pass: false, evidence: "none" }, "junk"] }
    // Refused by the close gate (tasks open), yet drawn first: the line of a refused call names it too.
    await expect(startCall("plan_close", close)).resolves.toBeUndefined()
    expect(close).toMatchObject({
      path: planPath,
      "PASS 1": "Login succeeds after 40 s of idle — test/login.test.ts passes",
      "PASS 2": "The suite is green — npm test: 12 passed",
      "FAIL 3": "odd — none",
    })
    const shell: Record<string, unknown> = { command: "ls", cwd: "sub" }
    await startCall("forge_shell", shell)
    expect(shell).toEqual({ command: "ls", cwd: "sub", dir: path.resolve(process.cwd(), "sub") })
    const bash: Record<string, unknown> = { command: "ls" }
    await startCall("bash", bash)
    expect(bash).toEqual({ command: "ls" })
  })
})
