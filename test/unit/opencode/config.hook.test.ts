import { describe, expect, it } from "vitest"
import { type LiveConfig, applyForgeConfig } from "../../../adapters/opencode/config.hook"
import { PLAN_TOOL_IDS } from "../../../adapters/opencode/plan.tools"

describe("config hook", () => {
  it("zero config: registers the forge agent, /plan, the default agent and the dialog keys", () => {
    const cfg: LiveConfig = {}
    expect(applyForgeConfig(cfg, PLAN_TOOL_IDS)).toEqual({ disabled: false })
    expect(cfg.agent?.forge?.mode).toBe("primary")
    expect(cfg.agent?.forge?.prompt).toContain("plan_write")
    expect(cfg.default_agent).toBe("forge")
    expect(cfg.command?.plan).toMatchObject({ agent: "forge" })
    expect(cfg.permission).toEqual({ plan_approve: "ask", plan_close: "ask" })
  })

  it("the user's own choices win: model and fields, default agent, command.plan", () => {
    const mine = { template: "my plan" }
    const cfg: LiveConfig = { agent: { forge: { model: "p/m", description: "mine" } }, default_agent: "build", command: { plan: mine } }
    applyForgeConfig(cfg, PLAN_TOOL_IDS)
    expect(cfg.agent?.forge).toMatchObject({ model: "p/m", description: "mine", mode: "primary" })
    expect(cfg.default_agent).toBe("build")
    expect(cfg.command?.plan).toBe(mine)
  })

  it("forces the dialogs to ask after any allow rule, at the top level and in agents' own permissions", () => {
    const cfg: LiveConfig = { permission: "allow", agent: { build: { permission: { "*": "allow", plan_approve: "allow" } } } }
    applyForgeConfig(cfg, PLAN_TOOL_IDS)
    expect(Object.entries(cfg.permission as object)).toEqual([
      ["*", "allow"],
      ["plan_approve", "ask"],
      ["plan_close", "ask"],
    ])
    expect(Object.entries(cfg.agent?.build?.permission as object).slice(-2)).toEqual([
      ["plan_approve", "ask"],
      ["plan_close", "ask"],
    ])
  })

  it("keeps an explicit deny of a dialog key", () => {
    const cfg: LiveConfig = { permission: { plan_close: "deny" } }
    applyForgeConfig(cfg, PLAN_TOOL_IDS)
    expect(cfg.permission).toEqual({ plan_close: "deny", plan_approve: "ask" })
  })

  it("agent.forge.disable: no agent, no command, no default agent, and every Forge tool hidden", () => {
    const cfg: LiveConfig = { agent: { forge: { disable: true } } }
    expect(applyForgeConfig(cfg, PLAN_TOOL_IDS)).toEqual({ disabled: true })
    expect(cfg.agent?.forge).toEqual({ disable: true })
    expect(cfg.command).toBeUndefined()
    expect(cfg.default_agent).toBeUndefined()
    expect(cfg.permission).toEqual(Object.fromEntries(PLAN_TOOL_IDS.map((id) => [id, "deny"])))
  })
})
