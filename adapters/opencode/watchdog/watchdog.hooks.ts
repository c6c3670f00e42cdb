// The hang watchdog's opencode hooks: shell.env stamps the per-call marker, tool.execute.before/after time the
// call, and a settled tool part ends the watch too (opencode skips tool.execute.after when a tool throws). Which
// calls are watched is the exec partition's decision; these handlers only translate opencode's shapes. The service is
// built by the first watched call: until then no watch exists, so the other hooks have nothing to tell it.
import path from "node:path"
import type { Hooks } from "@opencode-ai/plugin"
import { isWatchedShellCall } from "../../../machines/exec.partition"
import type { WatchdogService } from "../../../services/watchdog/watchdog.service"
import type { Lazy } from "../lazy"

export interface WatchdogHooksDeps {
  /** Undefined where the host has no /proc: the watchdog stands down. */
  watchdog: Lazy<WatchdogService | undefined>
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
      Object.assign(output.env, deps.watchdog.current()?.markerEnv({ callId: input.callID, cwd: input.cwd }))
    },

    async "tool.execute.before"(input, output) {
      const agent = deps.agentOf(input.sessionID)
      if (!isWatchedShellCall(agent, input.tool)) return
      const workdir = stringArg(output.args, "workdir")
      ;(await deps.watchdog.get())?.callStarted({
        callId: input.callID,
        sessionId: input.sessionID,
        agent,
        tool: input.tool,
        command: stringArg(output.args, "command") ?? "",
        // A relative workdir is resolved by the host; shell.env reports the real directory in any case.
        cwd: workdir !== undefined && path.isAbsolute(workdir) ? workdir : undefined,
      })
    },

    async "tool.execute.after"(input) {
      deps.watchdog.current()?.callEnded(input.callID)
    },

    async event({ event }) {
      const e = event as ToolPartEvent
      const part = e.properties?.part
      if (e.type !== "message.part.updated" || part?.type !== "tool" || part.callID === undefined) return
      if (part.state?.status === "completed" || part.state?.status === "error") deps.watchdog.current()?.callEnded(part.callID)
    },
  }
}
