// The hang watchdog's opencode hooks: shell.env stamps the per-call marker, tool.execute.before/after time the
// call, and a settled tool part ends the watch too (opencode skips tool.execute.after when a tool throws). Which
// calls are watched is the service's decision; these handlers only translate opencode's shapes.
import path from "node:path"
import type { Hooks } from "@opencode-ai/plugin"
import type { WatchdogService } from "../../services/watchdog/watchdog.service"

export interface WatchdogHooksDeps {
  watchdog: WatchdogService
  /** The agent speaking in a session, as chat.params reported it (tool hooks are not told who calls). */
  agentOf: (sessionID: string) => string | undefined
}

type Hook<K extends keyof Hooks> = NonNullable<Hooks[K]>

export interface WatchdogHooks {
  "shell.env": Hook<"shell.env">
  "tool.execute.before": Hook<"tool.execute.before">
  "tool.execute.after": Hook<"tool.execute.after">
  event: Hook<"event">
}

interface ToolPartEvent {
  type: string
  properties?: { part?: { type?: string; callID?: string; state?: { status?: string } } }
}

function stringArg(args: unknown, key: string): string | undefined {
  if (typeof args !== "object" || args === null) return undefined
  const value = (args as Record<string, unknown>)[key]
  return typeof value === "string" ? value : undefined
}

export function createWatchdogHooks(deps: WatchdogHooksDeps): WatchdogHooks {
  return {
    async "shell.env"(input, output) {
      // In place: opencode merges the object it passed in.
      Object.assign(output.env, deps.watchdog.markerEnv({ callId: input.callID, cwd: input.cwd }))
    },

    async "tool.execute.before"(input, output) {
      const workdir = stringArg(output.args, "workdir")
      deps.watchdog.callStarted({
        callId: input.callID,
        sessionId: input.sessionID,
        agent: deps.agentOf(input.sessionID),
        tool: input.tool,
        command: stringArg(output.args, "command") ?? "",
        // A relative workdir is resolved by the host; shell.env reports the real directory in any case.
        cwd: workdir !== undefined && path.isAbsolute(workdir) ? workdir : undefined,
      })
    },

    async "tool.execute.after"(input) {
      deps.watchdog.callEnded(input.callID)
    },

    async event({ event }) {
      const e = event as ToolPartEvent
      const part = e.properties?.part
      if (e.type !== "message.part.updated" || part?.type !== "tool" || part.callID === undefined) return
      if (part.state?.status === "completed" || part.state?.status === "error") deps.watchdog.callEnded(part.callID)
    },
  }
}
