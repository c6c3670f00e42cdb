import { type Actor, createActor } from "xstate"
import { type PlanInput, planMachine } from "forgecharts/machines"

// Forge's plan gate in front of any tool runner: a plan starts as a draft that bans every write and exec tool; only
// the user's approval (the machine's dialog) lifts the ban. The gate is the machine's own answer (`can`), never an if.

/** The plan machine with its one effect, the document write, left to this harness (it keeps no document). */
const gateMachine = planMachine.provide({ actions: { writeDocument: () => {} } })

export class PlanGate {
  private readonly actor: Actor<typeof gateMachine>

  constructor(input: Omit<PlanInput, "document">) {
    this.actor = createActor(gateMachine, { input: { ...input, document: "" } }).start()
  }

  /** Whether the plan lets `tool` run now: a draft permits only tools that change nothing. */
  canRun(tool: string): boolean {
    return this.actor.getSnapshot().can({ type: "tool.use", tool })
  }

  /** The plan's state, as the machine names it. */
  get state(): string {
    return JSON.stringify(this.actor.getSnapshot().value)
  }

  /** The model asks to approve the plan; the user's answer (`confirm`) decides, through the machine's dialog. */
  async approve(confirm: () => Promise<boolean>): Promise<boolean> {
    const snapshot = this.actor.getSnapshot()
    if (!snapshot.can({ type: "plan.approve" })) return false
    this.actor.send({ type: "plan.approve" })
    const dialog = this.actor.getSnapshot().context.dialog
    this.actor.send((await confirm()) ? { type: "dialog.allow", dialog } : { type: "dialog.reject", dialog })
    return this.actor.getSnapshot().matches("approved")
  }

  stop(): void {
    this.actor.stop()
  }
}
