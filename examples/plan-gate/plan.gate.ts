import { initialTransition, type SnapshotFrom, transition } from "xstate"
import { type PlanEvent, type PlanInput, planMachine } from "forgecharts/machines"

// Forge's plan gate in front of any tool runner: a plan starts as a draft that bans every write and exec tool; only
// the user's approval (the machine's dialog) lifts the ban. The gate is the machine's own answer (`can`), never an if.
// The machine is stepped with xstate's pure transition functions: each step returns the effects it asks for (the
// document write, here), and this harness, which keeps no document, runs none of them.

export class PlanGate {
  private snapshot: SnapshotFrom<typeof planMachine>

  constructor(input: Omit<PlanInput, "document">) {
    this.snapshot = initialTransition(planMachine, { ...input, document: "" })[0]
  }

  /** Whether the plan lets `tool` run now: a draft permits only tools that change nothing. */
  canRun(tool: string): boolean {
    return this.snapshot.can({ type: "tool.use", tool })
  }

  /** The plan's state, as the machine names it. */
  get state(): string {
    return JSON.stringify(this.snapshot.value)
  }

  /** The model asks to approve the plan; the user's answer (`confirm`) decides, through the machine's dialog. */
  async approve(confirm: () => Promise<boolean>): Promise<boolean> {
    if (!this.step({ type: "plan.approve" })) return false
    const dialog = this.snapshot.context.dialog
    this.step((await confirm()) ? { type: "dialog.allow", dialog } : { type: "dialog.reject", dialog })
    return this.snapshot.matches("approved")
  }

  /** One step, if the machine takes it. */
  private step(event: PlanEvent): boolean {
    if (!this.snapshot.can(event)) return false
    this.snapshot = transition(planMachine, this.snapshot, event)[0]
    return true
  }
}
