import { describe, expect, it } from "vitest"
import { NATIVE_MODE_REFUSAL, builtinShellRefusal, isForgeFamily, isSupervisorEnabled, keepsBuiltinShell } from "../../../machines/exec.partition"

// The exec partition is a policy, not a lifecycle: pure predicates in machines/ with their refusal texts beside them.

const options = (mode: "auto" | "forge" | "native", keepBuiltinShell = false) => ({ jobs: { mode, keepBuiltinShell } })

describe("exec partition", () => {
  it("jobs.mode native retires forge_shell and gives the builtin shell back, with a refusal that names the switch", () => {
    expect(isSupervisorEnabled(options("auto"))).toBe(true)
    expect(isSupervisorEnabled(options("native"))).toBe(false)
    expect(keepsBuiltinShell(options("native"))).toBe(true)
    expect(keepsBuiltinShell(options("auto"))).toBe(false)
    expect(keepsBuiltinShell(options("auto", true))).toBe(true)
    expect(NATIVE_MODE_REFUSAL).toMatch(/jobs\.mode is "native"/)
  })

  it("the belt refuses the builtin shell to the forge family only, and names forge_shell and the option", () => {
    expect(isForgeFamily("forge")).toBe(true)
    expect(isForgeFamily("forge-worker")).toBe(true)
    expect(isForgeFamily("build")).toBe(false)
    expect(builtinShellRefusal("forge", "bash", options("auto"))).toMatch(/Re-issue the command with forge_shell.*jobs\.keepBuiltinShell: true/)
    expect(builtinShellRefusal("build", "bash", options("auto"))).toBeNull()
    expect(builtinShellRefusal("forge", "read", options("auto"))).toBeNull()
    expect(builtinShellRefusal("forge", "bash", options("auto", true))).toBeNull()
    expect(builtinShellRefusal("forge", "bash", options("native"))).toBeNull()
  })
})
