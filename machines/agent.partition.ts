import { isForgeFamily } from "./exec.partition"

// The agent partition for the harness state tools, a policy that is no lifecycle: the forge agent alone drives a
// goal. A forge-* worker is refused as primary-only (it reports back instead); any other agent is refused with the
// way to the forge agent. The refusal fires before anything runs or any dialog opens.

export const GOAL_TOOL_IDS = ["goal_write", "goal_check", "goal_complete", "goal_pause", "goal_resume", "goal_discard"] as const

const STATE_TOOLS: ReadonlySet<string> = new Set(GOAL_TOOL_IDS)

export function isStateTool(tool: string): boolean {
  return STATE_TOOLS.has(tool)
}

/** Null when `agent` may call `tool`; else the refusal, naming the way out. */
export function stateToolRefusal(agent: string | undefined, tool: string): string | null {
  if (!isStateTool(tool) || agent === "forge") return null
  if (isForgeFamily(agent))
    return `agent partition: ${tool} is primary-only — the ${agent} worker does not change harness state. Report your findings back to the orchestrating session; the primary forge agent alone calls the state tools.`
  return `agent partition: ${tool} belongs to the forge agent, and ${agent ?? "this agent"} is not in the forge family. Switch to the forge agent (Tab) to work with goals.`
}
