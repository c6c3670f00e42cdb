// What Forge's own hooks cost one `read` round trip, measured in-process: the plugin's entry loaded from the sources
// on an empty workspace (no opencode, no model), then the hook calls opencode makes for one tool call of a session
// that holds no lifecycle, in the order a traced `opencode run` made them. The first pass includes compiling the
// code on that path; later passes are the steady cost. Against the whole round trip `bench:startup` measures, this
// says how much of the plugin's share is Forge's code and how much is opencode's handling of a plugin and its tools.
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import type { Hooks, PluginInput } from "@opencode-ai/plugin"
import plugin from "../src/server"

const SESSION = "ses_bench_hooks"
const LATER_PASSES = 200

export interface HookPathCost {
  /** The first pass over the path, in ms. */
  firstMs: number
  /** The median of the later passes, in ms. */
  laterMs: number
}

/** The bus events and hooks of one `read` round trip, as opencode 1.18 calls them (traced with a wrapping plugin). */
async function readRoundTrip(hooks: Hooks, pass: number): Promise<void> {
  const callID = `call_${pass}`
  const event = (type: string, properties: Record<string, unknown>) => hooks.event?.({ event: { type, properties } as never })
  const part = (status: string) => event("message.part.updated", { part: { type: "tool", tool: "read", callID, state: { status } } })
  await part("pending")
  await part("running")
  await hooks["tool.execute.before"]?.({ tool: "read", sessionID: SESSION, callID }, { args: { filePath: "notes.txt" } })
  await part("running")
  await hooks["tool.execute.after"]?.(
    { tool: "read", sessionID: SESSION, callID, args: { filePath: "notes.txt" } },
    { title: "notes.txt", output: "nothing to see here", metadata: {} },
  )
  await part("completed")
  await event("message.updated", { info: { id: `msg_${pass}`, sessionID: SESSION } })
  await event("session.status", { sessionID: SESSION, status: { type: "busy" } })
  await hooks["experimental.chat.messages.transform"]?.({}, { messages: [] })
  await event("session.updated", { info: { id: SESSION } })
  await event("session.diff", { sessionID: SESSION, diff: [] })
  await hooks["chat.params"]?.({ sessionID: SESSION, agent: "build" } as never, {} as never)
}

export async function measureHookPath(): Promise<HookPathCost> {
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), "forge-bench-hooks-"))
  const client = { app: { log: async () => ({}) } }
  const hooks = await plugin.server({ client, directory: workspace, worktree: workspace } as unknown as PluginInput, {})
  try {
    await hooks.config?.({} as never)
    await hooks.event?.({ event: { type: "session.created", properties: { info: { id: SESSION } } } as never })
    const time = async (pass: number) => {
      const start = performance.now()
      await readRoundTrip(hooks, pass)
      return performance.now() - start
    }
    const firstMs = await time(0)
    const later: number[] = []
    for (let pass = 1; pass <= LATER_PASSES; pass++) later.push(await time(pass))
    later.sort((a, b) => a - b)
    return { firstMs, laterMs: later[Math.floor(later.length / 2)] as number }
  } finally {
    await hooks.dispose?.()
    fs.rmSync(workspace, { recursive: true, force: true })
  }
}
