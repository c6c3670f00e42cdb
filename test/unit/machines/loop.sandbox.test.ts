import { describe, expect, it } from "vitest"
import { loopMachine, loopShellConfinement } from "../../../machines/loop/loop.machine"
import { explainLoopBirthRefusal } from "../../../machines/loop/loop.refusals"
import { type LoopSandbox, isSandboxReady } from "../../../machines/loop/loop.sandbox"
import { initialStep, step } from "../../../services/lifecycle/lifecycle.step"
import { CODED, inputFor } from "../../model/loop.fixtures"
import { MODEL_DRIVER, MODEL_WORKTREE } from "../../model/loop.world"

// Which shells of a loop's sessions are confined, and how, is the machine's answer (the host only makes it so).

const ON: LoopSandbox = { mode: "bwrap", network: false, problem: null }

/** A loop born with `sandbox`, its first coder session `s1` opened. */
function coding(sandbox: LoopSandbox) {
  const born = initialStep(loopMachine, inputFor({ sandbox })).snapshot
  return step(loopMachine, born, { type: "loop.session.opened", session: "s1", driver: MODEL_DRIVER }).snapshot
}

describe("the loop sandbox gate", () => {
  it("starts a loop whose sandbox starts, or whose sandbox the user turned off; refuses one whose sandbox cannot start", () => {
    expect(isSandboxReady(ON)).toBe(true)
    expect(isSandboxReady({ mode: "off", network: false, problem: null })).toBe(true)
    const problem = "bwrap is not installed (no bwrap on PATH)"
    expect(isSandboxReady({ ...ON, problem })).toBe(false)
    const refused = initialStep(loopMachine, inputFor({ sandbox: { ...ON, problem } })).snapshot
    expect(refused.value).toBe("refused")
    const text = explainLoopBirthRefusal(refused)
    expect(text).toMatch(/^loop sandbox gate: .* cannot start here: bwrap is not installed \(no bwrap on PATH\)\. /)
    expect(text).toContain("apt install bubblewrap")
    expect(text).toContain('"loop.sandbox": "off"')
  })

  it("lets the current coder's shells write the worktree; an auditor's and an earlier session's write nothing", () => {
    const snapshot = coding({ ...ON, network: true })
    expect(loopShellConfinement(snapshot, "s1")).toEqual({ worktree: MODEL_WORKTREE.dir, writable: true, network: true })
    expect(loopShellConfinement(snapshot, "ses_of_no_loop")).toBeNull()
    let audit = step(loopMachine, snapshot, { type: "loop.handoff", session: "s1", handoff: CODED }).snapshot
    audit = step(loopMachine, audit, { type: "loop.idle", session: "s1" }).snapshot
    audit = step(loopMachine, audit, { type: "loop.session.opened", session: "s2", driver: MODEL_DRIVER }).snapshot
    expect(audit.value).toEqual({ running: "auditing" })
    expect(loopShellConfinement(audit, "s2")).toEqual({ worktree: MODEL_WORKTREE.dir, writable: false, network: true })
    expect(loopShellConfinement(audit, "s1"), "the coder's session, its pass over").toEqual({ worktree: MODEL_WORKTREE.dir, writable: false, network: true })
  })

  it("confines nothing when the user turned the sandbox off, nor once the loop has ended", () => {
    expect(loopShellConfinement(coding({ mode: "off", network: false, problem: null }), "s1")).toBeNull()
    const cancelled = step(loopMachine, coding(ON), { type: "loop.cancel", reason: "cancelled: by the user", session: null }).snapshot
    expect(cancelled.value).toBe("cancelled")
    expect(loopShellConfinement(cancelled, "s1")).toBeNull()
  })
})
