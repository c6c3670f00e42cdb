import { mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import type { Hooks } from "@opencode-ai/plugin"
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import type { LiveConfig } from "../../../adapters/opencode/config.hook"
import type { FragmentContext } from "../../../adapters/opencode/forge.fragment"
import { ready } from "../../../adapters/opencode/lazy"
import { workerFragment } from "../../../adapters/opencode/worker/worker.fragment"
import { WorkerAnchors } from "../../../services/workers/worker.anchors"
import { createHostWorkers } from "../../../src/workers/workers.lazy"
import { memoryLogger } from "../plan/plan.helpers"
import { tempDir } from "../../temp.dir"

// The forge.json workers' fragment over real files: the config hook materializes the project's and the global
// layer's workers as opencode agents, and chat.params gives a pinned worker's session its depth, frozen at the first
// request. Only opencode's side is stood in for (the live config object and the hooks' inputs).

type ParamsHook = NonNullable<Hooks["chat.params"]>
type ParamsInput = Parameters<ParamsHook>[0]

/** A reasoning model of an OpenAI-compatible provider, as opencode 1.18.33 hands it to chat.params. */
const MODEL = {
  id: "fake-pinned",
  providerID: "fake",
  api: { npm: "@ai-sdk/openai-compatible" },
  capabilities: { reasoning: true },
  variants: { low: {}, medium: {}, high: {} },
}

describe("the forge.json workers' fragment", () => {
  let project: string
  let log: ReturnType<typeof memoryLogger>
  let hooks: ReturnType<typeof workerFragment>["hooks"]

  const forgeJson = (text: string) => writeFileSync(path.join(project, ".opencode", "forge.json"), text)
  const params = async (sessionID: string, agent: string): Promise<Record<string, unknown>> => {
    const output = { temperature: undefined, topP: undefined, topK: undefined, maxOutputTokens: undefined, options: {} as Record<string, unknown> }
    const hook = hooks?.["chat.params"] as ParamsHook | undefined
    if (hook === undefined) throw new Error("the workers fragment has no chat.params hook")
    await hook({ sessionID, agent, model: MODEL } as unknown as ParamsInput, output as unknown as Parameters<ParamsHook>[1])
    return output.options
  }

  beforeEach(() => {
    const home = tempDir("forge-workers-home-")
    vi.stubEnv("XDG_CONFIG_HOME", path.join(home, ".config"))
    mkdirSync(path.join(home, ".config", "opencode"), { recursive: true })
    writeFileSync(
      path.join(home, ".config", "opencode", "forge.json"),
      JSON.stringify({ agents: { global: {}, coder: { model: "other/m", thoughtLevel: "max" } } }),
    )
    project = tempDir("forge-workers-project-")
    mkdirSync(path.join(project, ".opencode"))
    forgeJson(`{
      // a pinned worker, an Auto worker, and one broken entry (a model without its thoughtLevel)
      "agents": {
        "coder": { "model": "fake/fake-pinned", "thoughtLevel": "high", "shape": "write" },
        "scout": {},
        "broken": { "model": "fake/fake-pinned" }
      }
    }`)
    log = memoryLogger()
    const ctx = { log, isDisabled: () => false } as unknown as FragmentContext
    hooks = workerFragment(ctx, ready(createHostWorkers({ directory: project, log, anchors: new WorkerAnchors() }))).hooks
  })
  afterEach(() => vi.unstubAllEnvs())

  it("materializes the project's workers over the global layer's, and a broken entry costs only itself", async () => {
    const cfg: LiveConfig = { agent: { "forge-scout": { description: "my own scout" } } }
    await hooks?.config?.(cfg as never)
    expect(Object.keys(cfg.agent ?? {}).sort()).toEqual(["forge-coder", "forge-global", "forge-scout"])
    // The project's coder wins whole over the global one; an Auto worker carries no model key at all.
    expect(cfg.agent?.["forge-coder"]).toMatchObject({ mode: "subagent", model: "fake/fake-pinned", permission: { task: "deny" } })
    expect(cfg.agent?.["forge-global"]).not.toHaveProperty("model")
    // The user's own fields for a worker's name win.
    expect(cfg.agent?.["forge-scout"]).toMatchObject({ mode: "subagent", description: "my own scout", permission: { edit: "deny", task: "deny" } })
    expect(log.lines.find((l) => l.includes("broken"))).toMatch(/^error: .*forge\.json.*broken.*thoughtLevel/)
  })

  it("a pinned worker's session gets its depth at its first request and keeps it; new sessions read the file again", async () => {
    expect(await params("ses_a", "forge-coder")).toEqual({ reasoningEffort: "high" })
    forgeJson(JSON.stringify({ agents: { coder: { model: "fake/fake-pinned", thoughtLevel: "low" } } }))
    expect(await params("ses_a", "forge-coder")).toEqual({ reasoningEffort: "high" })
    expect(await params("ses_b", "forge-coder")).toEqual({ reasoningEffort: "low" })
  })

  it("adds nothing for an Auto worker, the forge agent or another agent, and never throws for a file it cannot read", async () => {
    expect(await params("ses_c", "forge-scout")).toEqual({})
    expect(await params("ses_d", "forge")).toEqual({})
    expect(await params("ses_e", "build")).toEqual({})
    forgeJson("{ not json")
    expect(await params("ses_f", "forge-coder")).toEqual({})
  })

  it("a word the model does not offer sends nothing and logs one finding naming both vocabularies", async () => {
    forgeJson(JSON.stringify({ agents: { coder: { model: "fake/fake-pinned", thoughtLevel: "XHigh" } } }))
    expect(await params("ses_g", "forge-coder")).toEqual({})
    expect(await params("ses_g", "forge-coder")).toEqual({})
    const findings = log.lines.filter((l) => l.includes("XHigh"))
    expect(findings).toHaveLength(1)
    expect(findings[0]).toMatch(/none.*low.*medium.*high.*max/)
  })

  it("a shared host's second project adds its pool, namespaced, and keeps the first project's plain ids", async () => {
    const anchors = new WorkerAnchors()
    const second = tempDir("forge-workers-second-")
    mkdirSync(path.join(second, ".opencode"))
    writeFileSync(path.join(second, ".opencode", "forge.json"), JSON.stringify({ pool: "web", agents: { ui: {} } }))
    await createHostWorkers({ directory: project, log, anchors }).materialize()
    const agents = await createHostWorkers({ directory: second, log, anchors }).materialize()
    expect([...agents.keys()].sort()).toEqual(["forge-coder", "forge-global", "forge-scout", "forge-web-ui"])
    expect(anchors.list()).toEqual([project, second])
  })
})
