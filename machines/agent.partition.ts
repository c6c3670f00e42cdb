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

/** The harness documents' folders: the state machines govern them, so only the forge family writes there. */
const HARNESS_FOLDERS = [".opencode/plan/", ".opencode/goal/"] as const

const FILE_WRITE_TOOLS: ReadonlySet<string> = new Set(["write", "edit", "multiedit", "patch", "apply_patch"])

/** The files a builtin write tool's arguments name: `filePath`, or the file headers of a patch text. */
export function writtenPaths(tool: string, args: unknown): string[] {
  if (!FILE_WRITE_TOOLS.has(tool) || typeof args !== "object" || args === null) return []
  const { filePath, patchText } = args as { filePath?: unknown; patchText?: unknown }
  const paths: string[] = typeof filePath === "string" ? [filePath] : []
  if (typeof patchText === "string") for (const m of patchText.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)) if (m[1]) paths.push(m[1].trim())
  return paths
}

/**
 * Null when the call may run; else the refusal for an agent outside the forge family writing a plan or goal document
 * (reads stay open). `paths` are as the tool was given them, absolute or relative to the session's directory.
 */
export function harnessDocumentWriteRefusal(agent: string | undefined, tool: string, paths: readonly string[]): string | null {
  if (agent === undefined || isForgeFamily(agent)) return null
  const normalized = paths.map((p) => p.replace(/\\/g, "/"))
  const hit = normalized.find((p) => HARNESS_FOLDERS.some((folder) => p.startsWith(folder) || p.includes(`/${folder}`)))
  if (hit === undefined) return null
  return `agent partition: ${hit} is a Forge harness document, and the ${agent} agent is not in the forge family, so "${tool}" may not write it (reading stays open). Switch to the forge agent (Tab): its plan and goal tools change these documents through their state machines.`
}
