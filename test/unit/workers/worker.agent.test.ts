import { describe, expect, it } from "vitest"
import type { LiveConfig } from "../../../adapters/opencode/config.hook"
import type { WorkerEntry } from "../../../services/workers/forge.json.parse"
import { type WorkerAgentSpec, workerAgentConfig, workerPermission } from "../../../services/workers/worker.agent"

const pinned: WorkerAgentSpec = {
  id: "research",
  agentId: "forge-research",
  kind: "pinned",
  model: "zai-coding-plan/glm-5.3",
  thoughtLevel: "low",
}
const auto: WorkerAgentSpec = { id: "scout", agentId: "forge-scout", kind: "auto" }

/** What a readonly worker is denied, in order: every edit surface (opencode's and the forge file tools'), then every command surface. */
const READONLY_DENIES = {
  edit: "deny",
  forge_write: "deny",
  forge_patch: "deny",
  forge_remove: "deny",
  forge_undo: "deny",
  forge_rewind: "deny",
  bash: "deny",
  shell: "deny",
  forge_shell: "deny",
  forge_jobs: "deny",
} as const

describe("workerAgentConfig", () => {
  it("a pinned worker: a subagent on its model", () => {
    const entry = workerAgentConfig(pinned)
    expect(entry.mode).toBe("subagent")
    expect(entry.model).toBe("zai-coding-plan/glm-5.3")
    expect(entry.description).toContain("pinned: zai-coding-plan/glm-5.3 at low")
  })

  it("an Auto worker has no model key at all, and its description says it inherits", () => {
    const entry = workerAgentConfig(auto)
    expect("model" in entry).toBe(false)
    expect(Object.keys(entry)).toEqual(["mode", "description", "prompt", "permission"])
    expect(entry.description).toContain("inherits the parent session's model")
    expect(entry.description).not.toContain("pinned")
  })

  it("the user's description is used as written", () => {
    expect(workerAgentConfig({ ...pinned, description: "Finds things." }).description).toBe("Finds things.")
  })

  it("a generated description names the role (built-in or the id) and says read-only", () => {
    expect(workerAgentConfig(pinned).description).toMatch(/^Research worker: .*read-only\)$/)
    expect(workerAgentConfig({ ...auto, shape: "write" }).description).toBe(`Forge worker "scout" (inherits the parent session's model)`)
  })

  describe("permission", () => {
    it("readonly (the default) denies edits (opencode's and the forge file tools') and every command surface; task is denied last", () => {
      const { permission } = workerAgentConfig(auto)
      expect(permission).toEqual({ ...READONLY_DENIES, task: "deny" })
      expect(Object.keys(permission).at(-1)).toBe("task")
    })

    it("write adds no denies (edits and forge_shell follow the user's own config), task still denied", () => {
      expect(workerAgentConfig({ ...auto, shape: "write" }).permission).toEqual({ task: "deny" })
    })

    it("an explicit map overrides the shape default key by key", () => {
      const { permission } = workerAgentConfig({ ...auto, permission: { edit: "ask", webfetch: "deny" } })
      expect(permission).toEqual({ ...READONLY_DENIES, edit: "ask", webfetch: "deny", task: "deny" })
      expect(workerAgentConfig({ ...auto, shape: "write", permission: { bash: "deny" } }).permission).toEqual({ bash: "deny", task: "deny" })
    })

    it("a user wildcard comes before the shape's denies, so it does not reopen them", () => {
      const { permission } = workerAgentConfig({ ...auto, permission: { "*": "allow" } })
      expect(Object.keys(permission)).toEqual(["*", ...Object.keys(READONLY_DENIES), "task"])
    })

    it("opening forge_shell on a readonly worker opens polling its jobs too", () => {
      const { forge_shell: _shell, forge_jobs: _jobs, ...rest } = READONLY_DENIES
      expect(workerPermission("readonly", { forge_shell: "allow" })).toEqual({ ...rest, forge_shell: "allow", task: "deny" })
      expect(workerPermission("readonly", { forge_shell: "allow", forge_jobs: "deny" })).toMatchObject({ forge_jobs: "deny" })
    })

    it("pattern maps are kept as written (and copied)", () => {
      const bash = { "*": "deny", "git status*": "allow" } as const
      const { permission } = workerAgentConfig({ ...auto, shape: "write", permission: { bash } })
      expect(permission.bash).toEqual(bash)
      expect(permission.bash).not.toBe(bash)
    })

    it("task is ALWAYS denied, last, even when the map allows it", () => {
      for (const task of ["allow", { "*": "allow" }] as const) {
        const { permission } = workerAgentConfig({ ...pinned, shape: "write", permission: { task, read: "allow" } })
        expect(permission.task).toBe("deny")
        expect(Object.keys(permission).at(-1)).toBe("task")
      }
    })
  })

  describe("prompt", () => {
    it("wraps the built-in role text in the worker discipline", () => {
      const { prompt } = workerAgentConfig(pinned)
      expect(prompt).toMatch(/^You are a research worker\./)
      expect(prompt).toContain("forge-research")
      expect(prompt).toContain("workspace-relative")
      expect(prompt).toContain("verbatim")
      expect(prompt).toContain("evidence")
      expect(prompt).toMatch(/plan_\*, goal_\* or crew_\*/)
      expect(prompt).toContain("read-only")
    })

    it("review has a built-in role text; any other id gets a one-liner", () => {
      expect(workerAgentConfig({ ...auto, id: "review", agentId: "forge-review" }).prompt).toMatch(/^You are a review worker\./)
      expect(workerAgentConfig({ ...auto, id: "coder", agentId: "forge-aa-coder" }).prompt).toMatch(/^You are the "coder" worker\. [^\n]+\n\n/)
    })

    it("an explicit prompt fully replaces the role text; the discipline stays", () => {
      const { prompt } = workerAgentConfig({ ...pinned, prompt: "Map the database layer." })
      expect(prompt).toMatch(/^Map the database layer\.\n\nWorker discipline/)
      expect(prompt).not.toContain("research worker")
    })

    it("a worker with a shell is told forge_shell (never bash) and to poll its background jobs", () => {
      const { prompt } = workerAgentConfig({ ...auto, shape: "write" })
      expect(prompt).toContain("through forge_shell, never bash")
      expect(prompt).toContain("forge_jobs")
      expect(prompt).not.toContain("read-only")
    })

    it("a readonly worker is told it has no shell", () => {
      const { prompt } = workerAgentConfig(auto)
      expect(prompt).toContain("you run no commands")
      expect(prompt).not.toContain("through forge_shell")
    })
  })

  it("fits opencode's live config, and a parsed forge.json entry fits its spec", () => {
    const agents: NonNullable<LiveConfig["agent"]> = {}
    agents["forge-research"] = workerAgentConfig(pinned)
    const entry: WorkerEntry = { id: "scout", kind: "auto", shape: "readonly" }
    const spec: WorkerAgentSpec = { ...entry, agentId: "forge-scout" }
    expect(workerAgentConfig(spec).mode).toBe("subagent")
  })
})
