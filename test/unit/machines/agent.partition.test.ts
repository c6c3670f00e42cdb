import { describe, expect, it } from "vitest"
import { GOAL_TOOL_IDS, harnessDocumentWriteRefusal, stateToolRefusal, writtenPaths } from "../../../machines/agent.partition"

describe("agent partition: the goal tools", () => {
  it("lets the forge agent call every goal tool, and leaves other tools alone", () => {
    for (const tool of GOAL_TOOL_IDS) expect(stateToolRefusal("forge", tool)).toBeNull()
    expect(stateToolRefusal("build", "read")).toBeNull()
    expect(stateToolRefusal("forge-reviewer", "forge_shell")).toBeNull()
  })

  it("refuses a forge-* worker as primary-only, naming the way out", () => {
    const refusal = stateToolRefusal("forge-reviewer", "goal_complete")
    expect(refusal).toMatch(/^agent partition: goal_complete is primary-only/)
    expect(refusal).toContain("Report your findings back to the orchestrating session")
  })

  it("refuses any other agent, pointing to the forge agent", () => {
    expect(stateToolRefusal("build", "goal_write")).toMatch(
      /goal_write belongs to the forge agent, and build is not in the forge family\. Switch to the forge agent/,
    )
    expect(stateToolRefusal(undefined, "goal_pause")).toContain("this agent is not in the forge family")
  })
})

describe("agent partition: harness documents", () => {
  it("reads the paths a builtin write tool names, including a patch's file headers", () => {
    expect(writtenPaths("write", { filePath: "/w/.opencode/goal/a.md", content: "x" })).toEqual(["/w/.opencode/goal/a.md"])
    expect(
      writtenPaths("apply_patch", { patchText: "*** Begin Patch\n*** Update File: .opencode/plan/p.md\n@@\n*** Add File: src/a.ts\n*** End Patch" }),
    ).toEqual([".opencode/plan/p.md", "src/a.ts"])
    expect(writtenPaths("read", { filePath: "/w/.opencode/goal/a.md" })).toEqual([])
    expect(writtenPaths("edit", null)).toEqual([])
  })

  it("refuses an agent outside the forge family writing a plan or goal document; reads and other files stay open", () => {
    expect(harnessDocumentWriteRefusal("build", "edit", ["/w/.opencode/goal/2026-12-02-x.md"])).toMatch(
      /^agent partition: \/w\/\.opencode\/goal\/2026-12-02-x\.md is a Forge harness document/,
    )
    expect(harnessDocumentWriteRefusal("build", "write", [".opencode/plan/p.md"])).toContain('"write" may not write it')
    expect(harnessDocumentWriteRefusal("build", "write", ["src/.opencode-planning.md", "/w/docs/goal/x.md"])).toBeNull()
    expect(harnessDocumentWriteRefusal("forge", "write", [".opencode/goal/x.md"])).toBeNull()
    expect(harnessDocumentWriteRefusal("forge-worker", "edit", [".opencode/plan/x.md"])).toBeNull()
    expect(harnessDocumentWriteRefusal(undefined, "edit", [".opencode/plan/x.md"])).toBeNull()
  })
})
