import { JOB_TOOL_IDS, isForgeFamily } from "./exec.partition"

// The agent partition, a policy that is no lifecycle: the forge family (the forge agent and its forge-* workers)
// against everyone else (opencode's build/plan/general/explore and the user's own agents). The config hook hides
// (denies) what an agent may not call; these predicates are the belts behind the hide, for hosts that show a tool
// anyway. Each refusal fires before anything runs or any dialog opens, and names the way out.

export const PLAN_TOOL_IDS = ["plan_write", "plan_read", "plan_edit", "plan_approve", "plan_tick", "plan_close", "plan_discard"] as const
export const GOAL_TOOL_IDS = ["goal_write", "goal_check", "goal_complete", "goal_pause", "goal_resume", "goal_discard"] as const
export const CREW_TOOL_IDS = ["crew_begin", "crew_close"] as const
/** The loop tools: start, status and cancel for the session that runs loops; handoff and adjust for a loop's passes. */
/** The review findings' tools: a loop's auditor records and deletes findings; anyone reads them. */
export const REVIEW_TOOL_IDS = ["review_write", "review_read", "review_delete"] as const
export const LOOP_TOOL_IDS = [
  "loop_start",
  "loop_status",
  "loop_cancel",
  "loop_handoff",
  "loop_complete",
  "loop_adjust",
  "section_read",
  ...REVIEW_TOOL_IDS,
] as const
/** The forge file tools: the forge family's own read, write, patch, remove, undo, rewind, search and fetch. */
export const FILE_TOOL_IDS = ["forge_read", "forge_write", "forge_patch", "forge_remove", "forge_undo", "forge_rewind", "forge_search", "forge_fetch"] as const
/** The file tools that change files: a read-only worker has them denied. */
export const FILE_WRITE_TOOL_IDS: readonly string[] = ["forge_write", "forge_patch", "forge_remove", "forge_undo", "forge_rewind"]

/** attempt_completion may complete the session's goal: a state tool too. */
export const COMPLETION_TOOL_IDS = ["attempt_completion"] as const

/** The harness state tools: the primary forge agent alone calls them. */
export const STATE_TOOL_IDS: readonly string[] = [...PLAN_TOOL_IDS, ...GOAL_TOOL_IDS, ...CREW_TOOL_IDS, ...LOOP_TOOL_IDS, ...COMPLETION_TOOL_IDS]
/** Every tool of the forge family: the state tools, the exec surface and the file tools. Agents outside the family see none. */
export const FORGE_TOOL_IDS: readonly string[] = [...STATE_TOOL_IDS, ...JOB_TOOL_IDS, ...FILE_TOOL_IDS]

const STATE_TOOLS: ReadonlySet<string> = new Set(STATE_TOOL_IDS)
const FORGE_TOOLS: ReadonlySet<string> = new Set(FORGE_TOOL_IDS)

export function isStateTool(tool: string): boolean {
  return STATE_TOOLS.has(tool)
}

/**
 * Null when `agent` may call `tool`; else the refusal. The forge agent calls every Forge tool; a forge-* worker only
 * the exec surface (a state tool is primary-only: it reports back instead); any other agent none.
 */
export function forgeToolRefusal(agent: string | undefined, tool: string): string | null {
  if (!FORGE_TOOLS.has(tool) || agent === "forge") return null
  if (isForgeFamily(agent)) {
    if (!STATE_TOOLS.has(tool)) return null
    return `agent partition: ${tool} is primary-only — the ${agent} worker does not change harness state. Report your findings back to the orchestrating session; the primary forge agent alone calls the state tools.`
  }
  return `agent partition: ${tool} belongs to the forge agent, and ${agent ?? "this agent"} is not in the forge family. Switch to the forge agent (Tab) to work with Forge's plans, goals, crews, jobs and file tools.`
}

/** The subagent a task call dispatches (opencode's task tool names it `subagent_type`). */
export function dispatchedAgent(tool: string, args: unknown): string | undefined {
  if (tool !== "task" || typeof args !== "object" || args === null) return undefined
  const { subagent_type } = args as { subagent_type?: unknown }
  return typeof subagent_type === "string" ? subagent_type : undefined
}

/** Null when `agent` may dispatch `subagent`; else the refusal: forge-* workers are the forge agent's to dispatch. */
export function taskDispatchRefusal(agent: string | undefined, subagent: string | undefined): string | null {
  if (agent === undefined || subagent === undefined || isForgeFamily(agent) || !isForgeFamily(subagent)) return null
  return `agent partition: ${subagent} is a forge worker, dispatched by the forge agent only, and the ${agent} agent is not in the forge family. Dispatch one of your own subagents, or switch to the forge agent (Tab).`
}

/** The harness documents' folders, under `.opencode/`: the state machines govern them, so only the forge family writes there. */
const HARNESS_FOLDERS: ReadonlySet<string> = new Set(["plan", "goal", "crew"])

const FILE_WRITE_TOOLS: ReadonlySet<string> = new Set(["write", "edit", "multiedit", "patch", "apply_patch"])

const PATCH_FILE_MARKERS: readonly string[] = ["*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:"]

/** The files a builtin write tool's arguments name: `filePath`, or the file headers of a patch text (a move's target too). */
export function writtenPaths(tool: string, args: unknown): string[] {
  if (!FILE_WRITE_TOOLS.has(tool) || typeof args !== "object" || args === null) return []
  const { filePath, patchText } = args as { filePath?: unknown; patchText?: unknown }
  const paths: string[] = typeof filePath === "string" ? [filePath] : []
  // Read as opencode's patch parser reads it: lines split on "\n" alone, a header is any line starting with its marker,
  // and the path is the rest of the line trimmed (no space after the colon needed, a "\r" is part of the line).
  if (typeof patchText === "string")
    for (const line of patchText.split("\n")) {
      const marker = PATCH_FILE_MARKERS.find((m) => line.startsWith(m))
      const named = marker === undefined ? "" : line.slice(marker.length).trim()
      if (named !== "") paths.push(named)
    }
  return paths
}

/**
 * Whether a path names a file in a harness folder, however it is spelled: either slash, `//`, `.` and `..` segments
 * resolved, and the folder names compared without case (a case-insensitive file system writes `Plan/` into `plan/`).
 */
function isHarnessDocument(path: string): boolean {
  const segments: string[] = []
  for (const segment of path.replace(/\\/g, "/").split("/")) {
    if (segment === "" || segment === ".") continue
    if (segment === ".." && segments.length > 0 && segments.at(-1) !== "..") segments.pop()
    else segments.push(segment.toLowerCase())
  }
  return segments.some((segment, i) => segment === ".opencode" && HARNESS_FOLDERS.has(segments[i + 1] ?? "") && i + 2 < segments.length)
}

/**
 * Null when the call may run; else the refusal for an agent outside the forge family writing a plan, goal or crew
 * document (reads stay open). `paths` are as the tool was given them, absolute or relative to the session's directory.
 */
export function harnessDocumentWriteRefusal(agent: string | undefined, tool: string, paths: readonly string[]): string | null {
  if (agent === undefined || isForgeFamily(agent)) return null
  const hit = paths.find(isHarnessDocument)
  if (hit === undefined) return null
  return `agent partition: ${hit} is a Forge harness document, and the ${agent} agent is not in the forge family, so "${tool}" may not write it (reading stays open). Switch to the forge agent (Tab): its plan, goal and crew tools change these documents through their state machines.`
}

/**
 * Every belt of the partition for one call, in order: Forge tools, forge-* dispatch, harness documents. A speaker not
 * known yet (`undefined`) is let through: each Forge tool checks its calling agent itself.
 */
export function partitionRefusal(agent: string | undefined, tool: string, args: unknown): string | null {
  if (agent === undefined) return null
  return (
    forgeToolRefusal(agent, tool) ??
    taskDispatchRefusal(agent, dispatchedAgent(tool, args)) ??
    harnessDocumentWriteRefusal(agent, tool, writtenPaths(tool, args))
  )
}
