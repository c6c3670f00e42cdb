import { FILE_WRITE_TOOL_IDS } from "../../machines/agent.partition"
import { BUILTIN_SHELL_TOOLS, JOB_TOOL_IDS } from "../../machines/exec.partition"
import { workerPrompt, workerRoleDescription } from "./worker.prompt"

// One forge.json worker → the opencode agent entry it materializes as (`cfg.agent[agentId]` in the config hook).
// A pinned worker carries its model; an Auto worker carries NO model key at all, so opencode runs it on the parent
// session's model. Depth is not part of the entry: it rides chat.params (thought.level.ts).
//
// Permission: opencode evaluates rules last-match-wins, and hides a tool whose last matching rule is a "*" deny.
// `edit` covers edit, write and apply_patch there (there is no separate `write` key). The user's map comes first,
// the shape's denies for the keys it does not name after it (a user "*": "allow" does not reopen them), and
// `task: "deny"` last of all: a worker can never spawn workers, whatever the map says.

export type WorkerPermissionAction = "allow" | "ask" | "deny"
/** An action, or (for pattern-aware tools such as bash) pattern → action. */
export type WorkerPermissionValue = WorkerPermissionAction | Readonly<Record<string, WorkerPermissionAction>>
export type WorkerAgentShape = "readonly" | "write"

interface WorkerAgentFields {
  /** The entry's id as written in forge.json ("research"): the role the built-in texts are looked up by. */
  id: string
  /** The materialized agent name: "forge-<id>", or "forge-<ns>-<id>" for a namespaced pool. */
  agentId: string
  prompt?: string
  description?: string
  /** Default "readonly". */
  shape?: WorkerAgentShape
  permission?: Readonly<Record<string, WorkerPermissionValue>>
}

/** What materialization reads of a worker (a forge.json WorkerEntry plus its agent name fits it). */
export type WorkerAgentSpec = WorkerAgentFields & ({ kind: "pinned"; model: string; thoughtLevel: string } | { kind: "auto" })

/** The opencode agent entry (a type alias, so it fits the live config's indexed agent shape). */
export type WorkerAgentConfig = {
  mode: "subagent"
  description: string
  prompt: string
  /** Pinned workers only: an Auto worker's entry has no `model` key. */
  model?: string
  permission: Record<string, WorkerPermissionValue>
}

const FORGE_SHELL = "forge_shell"
const FORGE_JOBS = "forge_jobs"
// Read-only: no file edits (opencode's or the forge file tools') and no command surface at all, neither the builtin
// shell nor the forge family's own.
const READONLY_DENIES: readonly string[] = ["edit", ...FILE_WRITE_TOOL_IDS, ...BUILTIN_SHELL_TOOLS, ...JOB_TOOL_IDS]

export function workerAgentConfig(spec: WorkerAgentSpec): WorkerAgentConfig {
  const permission = workerPermission(spec.shape ?? "readonly", spec.permission ?? {})
  const canEdit = permission.edit !== "deny"
  const canShell = permission[FORGE_SHELL] !== "deny"
  const brain = spec.kind === "pinned" ? `pinned: ${spec.model} at ${spec.thoughtLevel}` : "inherits the parent session's model"
  const description = spec.description ?? `${workerRoleDescription(spec.id)} (${brain}${canEdit ? "" : "; read-only"})`
  const prompt = workerPrompt({ id: spec.id, agentId: spec.agentId, prompt: spec.prompt, canEdit, canShell })
  return {
    mode: "subagent",
    description,
    prompt,
    ...(spec.kind === "pinned" ? { model: spec.model } : {}),
    permission,
  }
}

/** The worker's rules: the user's map, then the shape's denies it left alone, then `task: "deny"` last. */
export function workerPermission(shape: WorkerAgentShape, override: Readonly<Record<string, WorkerPermissionValue>>): Record<string, WorkerPermissionValue> {
  const rules: Record<string, WorkerPermissionValue> = {}
  for (const [key, rule] of Object.entries(override)) {
    if (key !== "task") rules[key] = typeof rule === "string" ? rule : { ...rule }
  }
  if (shape === "readonly") {
    for (const key of READONLY_DENIES) {
      if (Object.hasOwn(override, key)) continue
      // Opening forge_shell opens polling its background jobs too, unless the map says otherwise.
      if (key === FORGE_JOBS && Object.hasOwn(override, FORGE_SHELL) && override[FORGE_SHELL] !== "deny") continue
      rules[key] = "deny"
    }
  }
  rules.task = "deny"
  return rules
}
