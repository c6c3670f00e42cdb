import { describe, expect, it } from "vitest"
import { type LiveConfig, applyForgeConfig } from "../../../adapters/opencode/config.hook"
import { PLAN_TOOL_IDS } from "../../../adapters/opencode/plan/plan.tools"
import { FORGE_TOOL_IDS, STATE_TOOL_IDS } from "../../../machines/agent.partition"
import { defaultForgeOptions } from "../../../services/config/forge.options"

describe("config hook", () => {
  it("zero config: registers the forge agent, /plan, the default agent and the dialog keys", () => {
    const cfg: LiveConfig = {}
    expect(applyForgeConfig(cfg, PLAN_TOOL_IDS, defaultForgeOptions)).toEqual({ disabled: false })
    expect(cfg.agent?.forge?.mode).toBe("primary")
    expect(cfg.agent?.forge?.prompt).toContain("plan_write")
    expect(cfg.default_agent).toBe("forge")
    expect(cfg.command?.plan).toMatchObject({ agent: "forge" })
    expect(cfg.command?.goal).toMatchObject({ agent: "forge" })
    expect(cfg.command?.crew).toMatchObject({ agent: "forge", template: "[forge:crew] $ARGUMENTS" })
    expect(cfg.permission).toEqual({
      plan_approve: "ask",
      plan_close: "ask",
      plan_discard: "ask",
      goal_write: "ask",
      goal_complete: "ask",
      goal_resume: "ask",
      goal_discard: "ask",
      crew_begin: "ask",
      crew_close: "ask",
      forge_shell: "ask",
      forge_rewind: "ask",
    })
    // The forge family's exec surface is forge_shell: the builtin shell is hidden from the forge agent.
    expect(cfg.agent?.forge?.permission).toEqual({
      bash: "deny",
      shell: "deny",
      plan_approve: "ask",
      plan_close: "ask",
      plan_discard: "ask",
      goal_write: "ask",
      goal_complete: "ask",
      goal_resume: "ask",
      goal_discard: "ask",
      crew_begin: "ask",
      crew_close: "ask",
      forge_shell: "ask",
      forge_rewind: "ask",
    })
  })

  it("/plan's description fits the command popup of opencode's home screen (about 57 columns), whole", () => {
    const cfg: LiveConfig = {}
    applyForgeConfig(cfg, PLAN_TOOL_IDS, defaultForgeOptions)
    const description = (cfg.command?.plan as { description?: string } | undefined)?.description ?? ""
    expect(description.length).toBeGreaterThan(0)
    expect(description.length).toBeLessThanOrEqual(57)
    for (const word of ["<task>", "list", "resume", "discard"]) expect(description).toContain(word)
  })

  it("the user's own choices win: model and fields, default agent, command.plan, command.goal and command.crew", () => {
    const mine = { template: "my plan" }
    const myGoal = { template: "my goal" }
    const myCrew = { template: "my crew" }
    const cfg: LiveConfig = {
      agent: { forge: { model: "p/m", description: "mine" } },
      default_agent: "build",
      command: { plan: mine, goal: myGoal, crew: myCrew },
    }
    applyForgeConfig(cfg, PLAN_TOOL_IDS, defaultForgeOptions)
    expect(cfg.agent?.forge).toMatchObject({ model: "p/m", description: "mine", mode: "primary" })
    expect(cfg.default_agent).toBe("build")
    expect(cfg.command?.plan).toBe(mine)
    expect(cfg.command?.goal).toBe(myGoal)
    expect(cfg.command?.crew).toBe(myCrew)
  })

  it("forces the dialogs to ask after any allow rule, at the top level and in agents' own permissions", () => {
    const cfg: LiveConfig = { permission: "allow", agent: { build: { permission: { "*": "allow", plan_approve: "allow" } } } }
    applyForgeConfig(cfg, PLAN_TOOL_IDS, defaultForgeOptions)
    expect(Object.entries(cfg.permission as object)).toEqual([
      ["*", "allow"],
      ["plan_approve", "ask"],
      ["plan_close", "ask"],
      ["plan_discard", "ask"],
      ["goal_write", "ask"],
      ["goal_complete", "ask"],
      ["goal_resume", "ask"],
      ["goal_discard", "ask"],
      ["crew_begin", "ask"],
      ["crew_close", "ask"],
      ["forge_shell", "ask"],
      ["forge_rewind", "ask"],
    ])
    // Every Forge tool comes last in an agent outside the forge family, denied: the partition hides them from it.
    expect(Object.entries(cfg.agent?.build?.permission as object).slice(1)).toEqual(FORGE_TOOL_IDS.map((id) => [id, "deny"]))
  })

  it("partitions the tools: every Forge tool hidden outside the forge family, the state tools and builtin shell hidden from forge-* workers", () => {
    const cfg: LiveConfig = { agent: { "forge-reviewer": { mode: "subagent" }, mine: { permission: { "*": "allow" } }, old: { disable: true } } }
    applyForgeConfig(cfg, PLAN_TOOL_IDS, defaultForgeOptions)
    const denied = (ids: readonly string[]) => Object.fromEntries(ids.map((id) => [id, "deny"]))
    for (const name of ["build", "plan", "general", "explore", "mine"]) expect(cfg.agent?.[name]?.permission, name).toMatchObject(denied(FORGE_TOOL_IDS))
    expect(cfg.agent?.["forge-reviewer"]?.permission).toMatchObject({ ...denied(STATE_TOOL_IDS), bash: "deny", shell: "deny" })
    expect(cfg.agent?.["forge-reviewer"]?.permission).not.toHaveProperty("forge_shell")
    expect(cfg.agent?.["forge-reviewer"]?.permission).not.toHaveProperty("forge_jobs")
    expect(cfg.agent?.["forge-reviewer"]?.mode).toBe("subagent")
    expect(cfg.agent?.old).toEqual({ disable: true })
    expect(cfg.agent?.forge?.permission).toMatchObject({ goal_write: "ask", goal_complete: "ask" })
    expect(cfg.agent?.forge?.permission).not.toHaveProperty("goal_check")
  })

  it("keeps an agent's own deny of a dialog key (a read-only worker keeps forge_shell hidden)", () => {
    const cfg: LiveConfig = { agent: { "forge-scout": { mode: "subagent", permission: { edit: "deny", forge_shell: "deny", task: "deny" } } } }
    applyForgeConfig(cfg, PLAN_TOOL_IDS, defaultForgeOptions)
    expect(cfg.agent?.["forge-scout"]?.permission).toMatchObject({ edit: "deny", forge_shell: "deny", task: "deny", plan_approve: "deny" })
  })

  it("keeps an explicit deny of a dialog key", () => {
    const cfg: LiveConfig = { permission: { plan_close: "deny", plan_discard: "deny" } }
    applyForgeConfig(cfg, PLAN_TOOL_IDS, defaultForgeOptions)
    expect(cfg.permission).toEqual({
      plan_close: "deny",
      plan_discard: "deny",
      plan_approve: "ask",
      goal_write: "ask",
      goal_complete: "ask",
      goal_resume: "ask",
      goal_discard: "ask",
      crew_begin: "ask",
      crew_close: "ask",
      forge_shell: "ask",
      forge_rewind: "ask",
    })
  })

  it("hides the builtin shell from the forge agent even when the user's agent.forge allows it", () => {
    const cfg: LiveConfig = { agent: { forge: { permission: { bash: "allow", edit: "ask" } } } }
    applyForgeConfig(cfg, PLAN_TOOL_IDS, defaultForgeOptions)
    expect(cfg.agent?.forge?.permission).toMatchObject({ edit: "ask", bash: "deny", shell: "deny" })
  })

  it("escape hatches: keepBuiltinShell gives the shell back; jobs.mode native also retires forge_shell/forge_jobs", () => {
    const keep: LiveConfig = {}
    applyForgeConfig(keep, PLAN_TOOL_IDS, { ...defaultForgeOptions, jobs: { ...defaultForgeOptions.jobs, keepBuiltinShell: true } })
    expect(keep.agent?.forge?.permission).toBeUndefined()
    expect(keep.permission).toMatchObject({ forge_shell: "ask" })
    const native: LiveConfig = {}
    applyForgeConfig(native, PLAN_TOOL_IDS, { ...defaultForgeOptions, jobs: { ...defaultForgeOptions.jobs, mode: "native" } })
    expect(native.agent?.forge?.permission).toBeUndefined()
    expect(native.permission).toEqual({
      forge_shell: "deny",
      forge_jobs: "deny",
      plan_approve: "ask",
      plan_close: "ask",
      plan_discard: "ask",
      goal_write: "ask",
      goal_complete: "ask",
      goal_resume: "ask",
      goal_discard: "ask",
      crew_begin: "ask",
      crew_close: "ask",
      forge_rewind: "ask",
    })
  })

  it("agent.forge.disable: no agent, no command, no default agent, and every Forge tool hidden", () => {
    const cfg: LiveConfig = { agent: { forge: { disable: true } } }
    expect(applyForgeConfig(cfg, PLAN_TOOL_IDS, defaultForgeOptions)).toEqual({ disabled: true })
    expect(cfg.agent?.forge).toEqual({ disable: true })
    expect(cfg.command).toBeUndefined()
    expect(cfg.default_agent).toBeUndefined()
    expect(cfg.permission).toEqual(Object.fromEntries(PLAN_TOOL_IDS.map((id) => [id, "deny"])))
  })
})
