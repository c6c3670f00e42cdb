import { describe, expect, it } from "vitest"
import {
  CREW_TOOL_IDS,
  FILE_WRITE_TOOL_IDS,
  FORGE_TOOL_IDS,
  GOAL_TOOL_IDS,
  PLAN_TOOL_IDS,
  dispatchedAgent,
  forgeToolRefusal,
  harnessDocumentWriteRefusal,
  partitionRefusal,
  taskDispatchRefusal,
  writtenPaths,
} from "../../../machines/agent.partition"
import { isWriteBannedTool } from "../../../machines/plan/plan.gates"

describe("agent partition: the Forge tools", () => {
  it("lets the forge agent call every Forge tool, and leaves other tools alone", () => {
    for (const tool of FORGE_TOOL_IDS) expect(forgeToolRefusal("forge", tool)).toBeNull()
    expect(FORGE_TOOL_IDS).toEqual(expect.arrayContaining([...PLAN_TOOL_IDS, ...GOAL_TOOL_IDS, ...CREW_TOOL_IDS, "forge_shell", "forge_jobs"]))
    expect(forgeToolRefusal("build", "read")).toBeNull()
    expect(forgeToolRefusal("forge-reviewer", "forge_shell")).toBeNull()
  })

  it("refuses a forge-* worker as primary-only, naming the way out", () => {
    const refusal = forgeToolRefusal("forge-reviewer", "goal_complete")
    expect(refusal).toMatch(/^agent partition: goal_complete is primary-only/)
    expect(refusal).toContain("Report your findings back to the orchestrating session")
    for (const tool of [...PLAN_TOOL_IDS, ...CREW_TOOL_IDS]) expect(forgeToolRefusal("forge-ns-coder", tool)).toMatch(/is primary-only/)
    expect(forgeToolRefusal("forge-ns-coder", "forge_jobs")).toBeNull()
  })

  it("refuses any other agent, pointing to the forge agent", () => {
    expect(forgeToolRefusal("build", "goal_write")).toMatch(
      /goal_write belongs to the forge agent, and build is not in the forge family\. Switch to the forge agent/,
    )
    for (const tool of ["plan_write", "plan_read", "crew_begin", "forge_shell", "forge_jobs"]) expect(forgeToolRefusal("my-reviewer", tool)).toContain(tool)
    // An agent merely named like the family is not in it.
    expect(forgeToolRefusal("forger", "plan_approve")).toContain("forger is not in the forge family")
    expect(forgeToolRefusal(undefined, "goal_pause")).toContain("this agent is not in the forge family")
  })
})

describe("agent partition: the file tools", () => {
  it("a draft plan's write ban covers every file tool that changes files", () => {
    for (const tool of FILE_WRITE_TOOL_IDS) expect(isWriteBannedTool(tool), tool).toBe(true)
    for (const tool of ["forge_read", "forge_search", "forge_fetch", "attempt_completion"]) expect(isWriteBannedTool(tool), tool).toBe(false)
  })

  it("the forge agent and workers call the file tools, other agents none of them; attempt_completion is primary-only", () => {
    for (const tool of FILE_WRITE_TOOL_IDS) {
      expect(forgeToolRefusal("forge-coder", tool)).toBeNull()
      expect(forgeToolRefusal("general", tool)).toContain("belongs to the forge agent")
    }
    expect(forgeToolRefusal("forge-coder", "attempt_completion")).toMatch(/is primary-only/)
    expect(forgeToolRefusal("forge", "attempt_completion")).toBeNull()
  })
})

describe("agent partition: harness documents", () => {
  it("reads the paths a builtin write tool names, including a patch's file headers", () => {
    expect(writtenPaths("write", { filePath: "/w/.opencode/goal/a.md", content: "x" })).toEqual(["/w/.opencode/goal/a.md"])
    expect(
      writtenPaths("apply_patch", { patchText: "*** Begin Patch\n*** Update File: .opencode/plan/p.md\n@@\n*** Add File: src/a.ts\n*** End Patch" }),
    ).toEqual([".opencode/plan/p.md", "src/a.ts"])
    // A patch that moves a file names where it goes too: the move writes that file.
    expect(
      writtenPaths("apply_patch", { patchText: "*** Begin Patch\n*** Update File: notes.md\n*** Move to: .opencode/goal/g.md\n@@\n*** End Patch" }),
    ).toEqual(["notes.md", ".opencode/goal/g.md"])
    // As opencode's own parser reads headers: no space after the colon needed, a tab is trimmed, and only "\n" ends a
    // line (a "\r" inside a path is part of it, never a cut that hides what follows).
    expect(
      writtenPaths("apply_patch", { patchText: "*** Begin Patch\n*** Add File:/w/src/x.ts\n*** Update File:\t/w/a.ts\n*** Move to:/w/b.ts\n*** End Patch" }),
    ).toEqual(["/w/src/x.ts", "/w/a.ts", "/w/b.ts"])
    expect(writtenPaths("apply_patch", { patchText: "*** Add File: wt/a\r/../../x" })).toEqual(["wt/a\r/../../x"])
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

  it("sees a harness document however its path is spelled", () => {
    for (const p of [
      "/w/.opencode//plan/p.md",
      "/w/.opencode/./goal/g.md",
      "./.opencode/crew/c.md",
      "/w/src/../.opencode/plan/p.md",
      "/w/.opencode/Plan/p.md",
      "C:\\w\\.opencode\\goal\\g.md",
    ])
      expect(harnessDocumentWriteRefusal("build", "write", [p]), p).toContain("is a Forge harness document")
    expect(harnessDocumentWriteRefusal("build", "write", ["/w/.opencode/plan/../notes.md", "/w/.opencode/planning/x.md", "/w/.opencode/plan"])).toBeNull()
  })
})

describe("agent partition: dispatching forge-* workers", () => {
  it("reads the subagent a task call names", () => {
    expect(dispatchedAgent("task", { subagent_type: "forge-coder", prompt: "x" })).toBe("forge-coder")
    expect(dispatchedAgent("task", { prompt: "x" })).toBeUndefined()
    expect(dispatchedAgent("read", { subagent_type: "forge-coder" })).toBeUndefined()
    expect(dispatchedAgent("task", "garbage")).toBeUndefined()
  })

  it("lets the forge family dispatch anything and everyone dispatch opencode's own subagents", () => {
    expect(taskDispatchRefusal("forge", "forge-coder")).toBeNull()
    expect(taskDispatchRefusal("build", "general")).toBeNull()
    expect(taskDispatchRefusal(undefined, "forge-coder")).toBeNull()
  })

  it("refuses an agent outside the family dispatching a forge worker, naming both", () => {
    expect(taskDispatchRefusal("build", "forge-aa-coder")).toMatch(/forge-aa-coder is a forge worker, dispatched by the forge agent only, and the build agent/)
  })

  it("runs every belt for one call", () => {
    expect(partitionRefusal("build", "task", { subagent_type: "forge-coder" })).toContain("forge worker")
    expect(partitionRefusal("build", "write", { filePath: ".opencode/crew/c.md" })).toContain("harness document")
    expect(partitionRefusal("build", "crew_close", {})).toContain("belongs to the forge agent")
    expect(partitionRefusal("build", "write", { filePath: "src/a.ts" })).toBeNull()
    expect(partitionRefusal("forge-coder", "write", { filePath: ".opencode/plan/p.md" })).toBeNull()
  })
})
