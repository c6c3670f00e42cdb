import { createHash } from "node:crypto"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import type { Hooks, PluginInput, ToolContext, ToolDefinition } from "@opencode-ai/plugin"
import plugin from "../../src/server"

// What every hostile test stands on: the real plugin entry (the tools as opencode gets them, over the real runtime:
// SQLite, files, processes), a workspace with a sibling folder beside it that no call may change, and a probe of
// the event loop that tells a freeze from a slow answer.

export interface HostileHost {
  workspace: string
  /** A folder beside the workspace, with files in it: hashed before and after, it must not change. */
  sibling: string
  tools: Record<string, ToolDefinition>
  /** Calls a tool with raw args, as opencode does: the user allows every dialog but access outside the workspace. */
  call(tool: string, args: unknown, session?: string): Promise<string>
  close(): Promise<void>
}

/** For a beforeAll: the host's folders are removed by close(). */
export async function openHostileHost(): Promise<HostileHost> {
  const root = mkdtempSync(path.join(tmpdir(), "forge-hostile-"))
  const workspace = path.join(root, "work")
  const sibling = path.join(root, "sibling")
  mkdirSync(workspace)
  mkdirSync(path.join(sibling, "deep"), { recursive: true })
  writeFileSync(path.join(sibling, "secret.txt"), "outside the workspace\n")
  writeFileSync(path.join(sibling, "deep", "notes.md"), "# notes\n")
  writeFileSync(path.join(workspace, "a.txt"), "alpha\nbeta\ngamma\n")
  // opencode's client, stood in for: no session has a parent or a message yet.
  const client = { app: { log: async () => undefined }, session: { get: async () => ({ data: undefined }), messages: async () => ({ data: [] }) } }
  const hooks: Hooks = await plugin.server({ client, directory: workspace, worktree: workspace } as unknown as PluginInput, {})
  await hooks.config?.({} as never)
  const tools = hooks.tool ?? {}
  return {
    workspace,
    sibling,
    tools,
    async call(tool, args, session = "ses_hostile") {
      const definition = tools[tool]
      if (definition === undefined) throw new Error(`no tool ${tool}`)
      const result = await definition.execute(args as never, userContext(session, workspace))
      return typeof result === "string" ? result : result.output
    },
    async close() {
      await hooks.dispose?.()
      rmSync(path.join(tmpdir(), "forgecharts"), { recursive: true, force: true })
      rmSync(root, { recursive: true, force: true })
    },
  }
}

/** A tool context whose user allows every dialog (a command, an approval) but external_directory: no way out by asking. */
function userContext(sessionID: string, directory: string): ToolContext {
  return {
    sessionID,
    messageID: "msg_hostile",
    agent: "forge",
    directory,
    worktree: directory,
    abort: new AbortController().signal,
    metadata: () => undefined,
    ask: async (input) => {
      if (input.permission === "external_directory") throw new Error("The user rejected permission to use this specific tool call.")
    },
  }
}

/** One hash of every file's path, mode and bytes under `dir`. */
export function treeHash(dir: string): string {
  const hash = createHash("sha256")
  const walk = (at: string): void => {
    for (const name of readdirSync(at).sort()) {
      const full = path.join(at, name)
      const stat = statSync(full)
      hash.update(`${path.relative(dir, full)}\0${stat.mode}\0`)
      if (stat.isDirectory()) walk(full)
      else hash.update(readFileSync(full))
    }
  }
  walk(dir)
  return hash.digest("hex")
}

/**
 * The longest time the event loop went without a turn while `work` ran. A tick counter at 10 ms: a slow answer that
 * lets the loop turn shows nothing here, a freeze shows its length.
 */
export async function longestStall<T>(work: () => Promise<T>): Promise<{ stallMs: number; outcome: PromiseSettledResult<T> }> {
  let last = performance.now()
  let longest = 0
  const timer = setInterval(() => {
    const now = performance.now()
    longest = Math.max(longest, now - last)
    last = now
  }, 10)
  const [outcome] = await Promise.allSettled([work()])
  clearInterval(timer)
  return { stallMs: Math.max(longest, performance.now() - last), outcome: outcome as PromiseSettledResult<T> }
}
