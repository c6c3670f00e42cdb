import type { ToolContext } from "@opencode-ai/plugin"
import { createPlanTools } from "../../../adapters/opencode/plan/plan.tools"
import { ready } from "../../../adapters/opencode/lazy"
import type { ComposedRuntime } from "../../../src/runtime"

/** What a tool's dialog was asked, and how the stand-in user answers it (true: allow, false: reject). */
export interface DialogLog {
  asked: { permission: string; patterns: string[] }[]
  answer: boolean
  /** What "Allow always" would remember, per ask. */
  always?: string[][]
}

/** A tool context as opencode hands it: only `ask` matters here, and it answers like the user (or `run`) would. */
export function toolContext(sessionID: string, dialogs: DialogLog): ToolContext {
  return {
    sessionID,
    messageID: "msg",
    agent: "forge",
    directory: "/",
    worktree: "/",
    abort: new AbortController().signal,
    metadata: () => undefined,
    async ask(input) {
      dialogs.asked.push({ permission: input.permission, patterns: input.patterns })
      dialogs.always?.push(input.always)
      if (!dialogs.answer) throw new Error("The user rejected permission to use this specific tool call.")
    },
  }
}

/** The real plan tools over a real runtime; the session is the tool context's own (no subagent tree). */
export function planTools(runtime: ComposedRuntime): ReturnType<typeof createPlanTools> {
  return createPlanTools({ forTool: async (ctx) => ({ runtime, session: ctx.sessionID }) }, ready(runtime.planHarness))
}

/** The transition log of one plan as `from|event|to` lines. */
export async function transitionsOf(runtime: ComposedRuntime, planPath: string): Promise<string[]> {
  const log = await runtime.repository.listTransitions({ instanceId: planPath })
  return log.map((t) => `${t.from}|${t.event}|${t.to}`)
}
