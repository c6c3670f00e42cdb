// The opencode hook handlers over a real service (its ports are stand-ins): they translate opencode's shapes and
// leave every decision to the service.
import { describe, expect, it } from "vitest"
import { ready } from "../../../adapters/opencode/lazy"
import { createWatchdogHooks } from "../../../adapters/opencode/watchdog/watchdog.hooks"
import { WATCHDOG_MARK_VAR } from "../../../services/watchdog/watchdog.ports"
import { harness } from "./watchdog.fakes"

function hooksWith(speakers: Record<string, string>) {
  const h = harness()
  const hooks = createWatchdogHooks({ watchdog: ready(h.service), agentOf: (id) => speakers[id] })
  return { ...h, hooks }
}

describe("watchdog hooks", () => {
  it("a forge bash call: timed from before, stamped by shell.env in place, over at after", async () => {
    const { hooks, service } = hooksWith({ ses_forge: "forge" })
    await hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_forge", callID: "call_1" }, { args: { command: "sleep 300", workdir: "/work/app" } })
    expect(service.watchOf("call_1")).toMatchObject({ command: "sleep 300", cwd: "/work/app", sessionId: "ses_forge" })
    const env = { PATH: "/bin" }
    const output = { env }
    await hooks["shell.env"]({ cwd: "/work/app/sub", sessionID: "ses_forge", callID: "call_1" }, output)
    expect(output.env).toBe(env)
    expect(env).toEqual({ PATH: "/bin", [WATCHDOG_MARK_VAR]: "call_1" })
    expect(service.watchOf("call_1")?.cwd).toBe("/work/app/sub")
    await hooks["tool.execute.after"]({ tool: "bash", sessionID: "ses_forge", callID: "call_1", args: {} }, { title: "", output: "", metadata: {} })
    expect(service.list()).toEqual([])
  })

  it("another agent's bash call carries nothing and is not timed", async () => {
    const { hooks, service } = hooksWith({ ses_build: "build" })
    await hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_build", callID: "call_2" }, { args: { command: "sleep 300" } })
    const output = { env: {} as Record<string, string> }
    await hooks["shell.env"]({ cwd: "/work", sessionID: "ses_build", callID: "call_2" }, output)
    expect(output.env).toEqual({})
    expect(service.list()).toEqual([])
  })

  it("a relative workdir is left to shell.env, which reports the real directory", async () => {
    const { hooks, service } = hooksWith({ s: "forge" })
    await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c" }, { args: { command: "make", workdir: "sub" } })
    expect(service.watchOf("c")?.cwd).toBeUndefined()
  })

  it("a tool part that settled ends the watch even when tool.execute.after never fires", async () => {
    const { hooks, service } = hooksWith({ s: "forge" })
    await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c1" }, { args: { command: "x" } })
    await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c2" }, { args: { command: "y" } })
    const part = (callID: string, status: string) =>
      ({ event: { type: "message.part.updated", properties: { sessionID: "s", part: { type: "tool", callID, state: { status } } } } }) as never
    await hooks.event(part("c1", "running"))
    expect(service.list().map((w) => w.callId)).toEqual(["c1", "c2"])
    await hooks.event(part("c1", "error"))
    await hooks.event(part("c2", "completed"))
    expect(service.list()).toEqual([])
  })
})
