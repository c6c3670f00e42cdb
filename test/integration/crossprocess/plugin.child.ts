// The whole Forge plugin in its own process, as an opencode process loads it: src/server.ts's entry with a stand-in
// for opencode's client (every session idle, the forge agent speaking last, prompts recorded), driven by JSON-line
// requests on stdin (PluginOps in protocol.ts). The waits are lowered through the test seams in the environment.
//
// stdout carries protocol lines only; the plugin's log goes to stderr, which the harness shows when something fails.
import { createInterface } from "node:readline"
import type { Hooks, PluginInput, ToolContext } from "@opencode-ai/plugin"
import plugin from "../../../src/server"
import { type Answer, type ChildEvent, type DialogAnswer, type PluginOps, type RequestTo, WORKSPACE_ENV } from "./protocol"

const workspace = process.env[WORKSPACE_ENV]
if (workspace === undefined || workspace === "") throw new Error(`plugin.child.ts: set ${WORKSPACE_ENV} to the workspace folder`)

function send(line: Answer | ChildEvent): void {
  process.stdout.write(`${JSON.stringify(line)}\n`)
}

/** The prompts this process sent into sessions (goal briefs, wakes), in order. */
const prompts: { session: string; text: string }[] = []

/** Dialogs held open, by hold name, until a `release` request answers them. */
const held = new Map<string, (allow: boolean) => void>()

function client(): PluginInput["client"] {
  const ok = <T>(data: T) => ({ data })
  let opened = 0
  const session = {
    status: async () => ok({}),
    // A loop's passes: a fresh session each, named by this process.
    create: async () => ok({ id: `ses_pass_${process.pid}_${++opened}` }),
    abort: async () => ok(true),
    get: async ({ path }: { path: { id: string } }) => ok({ id: path.id }),
    messages: async () =>
      ok([{ info: { role: "assistant", agent: "forge", time: { created: 0 }, cost: 0, tokens: { input: 0, output: 0, reasoning: 0 } }, parts: [] }]),
    promptAsync: async ({ path, body }: { path: { id: string }; body: { parts: { text: string }[] } }) => {
      prompts.push({ session: path.id, text: body.parts.map((part) => part.text).join("") })
      return ok({})
    },
  }
  const app = { log: async ({ body }: { body: { level: string; message: string } }) => process.stderr.write(`${body.level}: ${body.message}\n`) }
  return { session, app, tui: { showToast: async () => ok(true) } } as unknown as PluginInput["client"]
}

function contextFor(session: string, dialog: DialogAnswer): ToolContext {
  const ask = async () => {
    if (dialog === "allow") return
    if (dialog === "reject") throw new Error("rejected")
    const allowed = await new Promise<boolean>((resolve) => {
      held.set(dialog.hold, resolve)
      send({ event: "dialog", hold: dialog.hold, request: { permission: "", subject: "", summary: "" } })
    })
    if (!allowed) throw new Error("rejected")
  }
  // As opencode's tool context: the session's folder is the workspace (forge_shell runs its commands there).
  const directory = workspace as string
  return {
    sessionID: session,
    messageID: "msg",
    agent: "forge",
    directory,
    worktree: directory,
    abort: new AbortController().signal,
    ask,
  } as unknown as ToolContext
}

type Handlers = { [K in keyof PluginOps]: (args: PluginOps[K]["args"]) => Promise<PluginOps[K]["value"]> }

function handlers(hooks: Hooks): Handlers {
  return {
    command: async ({ session, command, arguments: args }) => {
      // The command's template, as opencode hands it over: the plugin replaces it with the turn's text.
      const output = { parts: [{ type: "text", text: `/${command} ${args}` }] as { type: string; text?: string }[] }
      await hooks["command.execute.before"]?.({ command, sessionID: session, arguments: args }, output as never)
      return output.parts.map((part) => part.text ?? "").join("\n")
    },
    tool: async ({ session, tool, args, dialog }) => {
      const definition = hooks.tool?.[tool]
      if (definition === undefined) throw new Error(`no tool ${tool}`)
      const result = await definition.execute(args as never, contextFor(session, dialog))
      return typeof result === "string" ? result : JSON.stringify(result)
    },
    idle: async ({ session }) => {
      await hooks.event?.({ event: { type: "session.idle", properties: { sessionID: session } } as never })
      return null
    },
    compaction: async ({ session }) => {
      const compacting = { context: [] as string[] }
      await hooks["experimental.session.compacting"]?.({ sessionID: session }, compacting as never)
      const autocontinue = { enabled: true }
      await hooks["experimental.compaction.autocontinue"]?.({ sessionID: session } as never, autocontinue)
      return { context: compacting.context, autocontinue: autocontinue.enabled }
    },
    prompts: async () => [...prompts],
    release: async ({ hold, allow }) => {
      const resolve = held.get(hold)
      if (resolve === undefined) throw new Error(`no dialog is held as "${hold}"`)
      held.delete(hold)
      resolve(allow)
      return null
    },
    exit: async () => {
      await hooks.dispose?.()
      return null
    },
  }
}

async function answer(table: Handlers, request: RequestTo<PluginOps>): Promise<void> {
  try {
    const handler = table[request.op] as (args: unknown) => Promise<unknown>
    if (handler === undefined) throw new Error(`unknown op "${String(request.op)}"`)
    send({ id: request.id, ok: true, value: (await handler(request.args)) ?? null })
  } catch (error) {
    const named = error instanceof Error ? error : new Error(String(error))
    send({ id: request.id, ok: false, error: { name: named.name, message: named.message } })
  }
  if (request.op === "exit") process.exit(0)
}

async function main(dir: string): Promise<void> {
  const input = { client: client(), directory: dir, worktree: dir, project: { id: "p", worktree: dir }, serverUrl: new URL("http://localhost:0"), $: undefined }
  const hooks = await plugin.server(input as unknown as PluginInput)
  // opencode builds its config first: the plugin's start (its restore schedule, its look for work) begins here.
  await hooks.config?.({} as never)
  const table = handlers(hooks)
  const lines = createInterface({ input: process.stdin })
  lines.on("line", (line) => {
    if (line.trim() === "") return
    void answer(table, JSON.parse(line) as RequestTo<PluginOps>)
  })
  lines.on("close", () => void Promise.resolve(hooks.dispose?.()).finally(() => process.exit(0)))
  send({ event: "ready", pid: process.pid, storageTrouble: null })
}

main(workspace).catch((error: unknown) => {
  send({ event: "fatal", message: error instanceof Error ? (error.stack ?? error.message) : String(error) })
  process.exit(1)
})
