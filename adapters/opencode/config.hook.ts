import type { ForgeOptions } from "../../services/config/forge.options"
import { FORGE_TOOL_IDS, STATE_TOOL_IDS } from "../../machines/agent.partition"
import { BUILTIN_SHELL_TOOLS, JOB_TOOL_IDS, isForgeFamily, isSupervisorEnabled, keepsBuiltinShell } from "../../machines/exec.partition"
import { CREW_COMMAND_DESCRIPTION } from "./prompts/crew.command"
import { FORGE_AGENT_DESCRIPTION, FORGE_AGENT_PROMPT } from "./prompts/forge.agent.prompt"
import { GOAL_COMMAND_DESCRIPTION } from "./prompts/goal.command"
import { PLAN_COMMAND_DESCRIPTION, PLAN_COMMAND_TEMPLATE } from "./prompts/plan.command"
import { REVIEW_COMMAND_DESCRIPTION, REVIEW_COMMAND_TEMPLATE, REVIEW_PLAN_COMMAND_DESCRIPTION, REVIEW_PLAN_COMMAND_TEMPLATE } from "./prompts/review.command"

/** The permission keys whose dialogs are gates: forced to "ask" so only a user can pass them. */
export const DIALOG_PERMISSIONS = [
  "plan_approve",
  "plan_close",
  "plan_discard",
  "goal_write",
  "goal_complete",
  "goal_resume",
  "goal_discard",
  "crew_begin",
  "crew_close",
  "forge_shell",
  "forge_rewind",
] as const

export const FORGE_AGENT = "forge"

/** opencode's own agents (1.18.33): a rule set on one of these merges over its defaults. */
const NATIVE_AGENTS = ["build", "plan", "general", "explore"] as const

// The slice of opencode's live config the plugin reads and changes. The SDK's Config type lags behind the
// permission keys opencode accepts, so the hook works on this structural view.
type PermissionAction = "ask" | "allow" | "deny"
type PermissionValue = PermissionAction | Record<string, PermissionAction>
type PermissionConfig = PermissionAction | Record<string, PermissionValue>
interface AgentConfig {
  disable?: boolean
  mode?: string
  prompt?: string
  description?: string
  model?: string
  permission?: PermissionConfig
  [key: string]: unknown
}
export interface LiveConfig {
  agent?: Record<string, AgentConfig | undefined>
  command?: Record<string, unknown>
  permission?: PermissionConfig
  default_agent?: string
  [key: string]: unknown
}

export interface ConfigOutcome {
  /** `agent.forge.disable: true`: the plugin stands down entirely. */
  disabled: boolean
}

/**
 * Registers the forge agent, the /plan command and the dialog permissions in the live (in-memory) config. Nothing is
 * ever written to the user's files. The user's own choices win: their command.plan, their default_agent, their
 * agent.forge fields, and an explicit "deny" on a dialog key.
 */
export function applyForgeConfig(cfg: LiveConfig, toolIds: readonly string[], options: ForgeOptions): ConfigOutcome {
  const userForge = cfg.agent?.[FORGE_AGENT]
  if (userForge?.disable === true) {
    // Tools cannot be unregistered after start-up; a deny on their ids hides them from every agent.
    cfg.permission = withRules(cfg.permission, denyAll(toolIds))
    return { disabled: true }
  }
  if (!isSupervisorEnabled(options)) cfg.permission = withRules(cfg.permission, denyAll(JOB_TOOL_IDS))
  cfg.agent ??= {}
  const forge: AgentConfig = { mode: "primary", description: FORGE_AGENT_DESCRIPTION, prompt: FORGE_AGENT_PROMPT, ...userForge }
  // The forge family's exec surface is forge_shell: the builtin shell is hidden from it (a deny hides a tool;
  // tools maps set from a plugin are ignored), whatever the user's own agent.forge says, unless an escape hatch is on.
  if (!keepsBuiltinShell(options)) forge.permission = withRules(forge.permission, denyAll(BUILTIN_SHELL_TOOLS))
  cfg.agent[FORGE_AGENT] = forge
  cfg.default_agent ??= FORGE_AGENT
  cfg.command ??= {}
  if (cfg.command.plan === undefined) {
    cfg.command.plan = { description: PLAN_COMMAND_DESCRIPTION, template: PLAN_COMMAND_TEMPLATE, agent: FORGE_AGENT }
  }
  // /goal's turn text is written by its command hook (the contract parsed, or a sub-command's result).
  if (cfg.command.goal === undefined) cfg.command.goal = { description: GOAL_COMMAND_DESCRIPTION, template: "[forge:goal] $ARGUMENTS", agent: FORGE_AGENT }
  // /crew's turn text is written by its command hook too (the crew discipline with the roster, or the setup guidance).
  if (cfg.command.crew === undefined) cfg.command.crew = { description: CREW_COMMAND_DESCRIPTION, template: "[forge:crew] $ARGUMENTS", agent: FORGE_AGENT }
  // /review and /review-plan run inline in the session (no subtask): the forge agent reviews and stores findings.
  if (cfg.command.review === undefined) cfg.command.review = { description: REVIEW_COMMAND_DESCRIPTION, template: REVIEW_COMMAND_TEMPLATE, agent: FORGE_AGENT }
  if (cfg.command["review-plan"] === undefined)
    cfg.command["review-plan"] = { description: REVIEW_PLAN_COMMAND_DESCRIPTION, template: REVIEW_PLAN_COMMAND_TEMPLATE, agent: FORGE_AGENT }
  const dialogs = Object.fromEntries(
    DIALOG_PERMISSIONS.filter((key) => !isExplicitDeny(cfg.permission, key) && (key !== "forge_shell" || isSupervisorEnabled(options))).map((key) => [
      key,
      "ask" as const,
    ]),
  )
  cfg.permission = withRules(cfg.permission, dialogs)
  // Rules are "last match wins" and agent rules come after the top level: an agent's own "*": "allow" would
  // otherwise answer the dialog without the user.
  // An agent's own deny of a dialog key stays (a read-only worker has forge_shell hidden).
  for (const agent of Object.values(cfg.agent)) {
    if (agent?.permission === undefined) continue
    const own = agent.permission
    agent.permission = withRules(own, Object.fromEntries(Object.entries(dialogs).filter(([key]) => !isExplicitDeny(own, key))))
  }
  // The agent partition (a deny hides a tool). Outside the forge family — opencode's build/plan/general/explore and
  // the user's own agents — no Forge tool is offered; a forge-* worker keeps the exec surface but no state tool, and,
  // like the forge agent, runs commands through forge_shell. Added last, so no dialog rule above lets them back in.
  const outsiders = denyAll(FORGE_TOOL_IDS)
  const workers = { ...denyAll(STATE_TOOL_IDS), ...(keepsBuiltinShell(options) ? {} : denyAll(BUILTIN_SHELL_TOOLS)) }
  for (const name of new Set([...NATIVE_AGENTS, ...Object.keys(cfg.agent)])) {
    const agent = cfg.agent[name]
    if (name === FORGE_AGENT || agent?.disable === true) continue
    cfg.agent[name] = { ...agent, permission: withRules(agent?.permission, isForgeFamily(name) ? workers : outsiders) }
  }
  return { disabled: false }
}

function denyAll(ids: readonly string[]): Record<string, PermissionAction> {
  return Object.fromEntries(ids.map((id) => [id, "deny" as const]))
}

/** Appends rules at the end (re-inserting existing keys) so they are the last to match. */
function withRules(permission: PermissionConfig | undefined, rules: Record<string, PermissionAction>): PermissionConfig {
  const base: Record<string, PermissionValue> = typeof permission === "string" ? { "*": permission } : { ...(permission ?? {}) }
  for (const [key, action] of Object.entries(rules)) {
    delete base[key]
    base[key] = action
  }
  return base
}

function isExplicitDeny(permission: PermissionConfig | undefined, key: string): boolean {
  return typeof permission === "object" && permission[key] === "deny"
}
