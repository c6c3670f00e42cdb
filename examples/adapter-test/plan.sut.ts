import { type CriterionCheck, type PlanEvent, type PlanTaskState, type planMachine, planStatusOf, stateToString } from "forgecharts/machines"
import { type Confirm, GateRefusal, LifecycleHost, PlanRegistry, PlanService, definePlanLifecycle, parsePlanDocument } from "forgecharts/services"
import type { ModelStep, ModelSut } from "forgecharts/testing"
import { expect } from "vitest"
import type { SnapshotFrom } from "xstate"
import { MemoryDocumentFiles } from "../goal-harness/memory.files"
import { MemoryLifecycleRepository } from "../goal-harness/memory.repository"

// The system under test for one model path: the plan service from the built package, on a fresh pair of the goal
// harness's adapters (the repository and the documents in memory). Each model event is made through the service's
// public API, as a tool call would make it; a call that asks the user is held with its dialog open until the model
// answers. After every step the service, the document and the repository must all say what the model says.

type Plan = typeof planMachine
export const SESSION = "harness-session"

/** The plan document for a model context's tasks and criteria. */
function planBody(tasks: readonly PlanTaskState[], criteria: readonly string[]): string {
  const taskLines = tasks.map((t) => `- [${t.ticked ? "x" : " "}] ${t.number}. Task ${t.number}`)
  return ["# Model plan", "", "## Tasks", ...taskLines, "", "## Acceptance Criteria", ...criteria.map((c) => `- ${c}`), ""].join("\n")
}

export async function startPlanSut(input: { tasks: PlanTaskState[]; criteria: string[] }): Promise<ModelSut<Plan>> {
  const sut = new PlanSut()
  sut.planPath = (await sut.plans.write(SESSION, planBody(input.tasks, input.criteria))).planPath
  return sut
}

class PlanSut implements ModelSut<Plan> {
  readonly repository = new MemoryLifecycleRepository()
  readonly files = new MemoryDocumentFiles()
  private readonly clock = { now: () => Date.now() }
  private readonly log = { info: () => {}, warn: () => {}, error: () => {} }
  private readonly host = new LifecycleHost({ repository: async () => this.repository, clock: this.clock, log: this.log })
  readonly registry = new PlanRegistry(definePlanLifecycle(this.host, { files: this.files, clock: this.clock }))
  readonly plans = new PlanService({ registry: this.registry, files: this.files, clock: this.clock, log: this.log })
  planPath = ""
  /** The dialog a held call waits on: answering it lets the call go on. */
  private dialog: { answer: (allowed: boolean) => void; done: Promise<unknown> } | undefined
  private finished = false

  async apply({ event, before, accepted }: ModelStep<Plan>): Promise<void> {
    switch (event.type) {
      case "tool.use": {
        // The gate asks the session's live plan: once the plan has ended, nothing is banned.
        const refusal = await this.plans.gate(SESSION, event.tool)
        return void expect(refusal === null, `the gate for ${event.tool}`).toBe(accepted || this.finished)
      }
      case "dialog.allow":
      case "dialog.reject":
        return this.answer(event, before, accepted)
      case "plan.document.changed":
        return this.editStatus(event.status, accepted)
      case "plan.revise":
        if (this.finished) {
          // plan_write after the plan ended starts another plan: this one stays as it ended.
          expect((await this.plans.write(SESSION, planBody(event.tasks, event.criteria))).planPath).not.toBe(this.planPath)
          return void expect(accepted).toBe(false)
        }
    }
    const call = this.call(event)
    if (accepted) return void (await call)
    await expect(call, `${event.type} must be refused`).rejects.toSatisfy(
      (error) => error instanceof GateRefusal || /no live plan/.test(String(error)),
      "a refusal in the machine's words, or no live plan",
    )
  }

  async agreesWith(model: SnapshotFrom<Plan>): Promise<void> {
    await this.registry.lifecycle.idle()
    const live = this.registry.snapshot(this.planPath)
    expect(live?.value, "the service's state").toEqual(model.value)
    expect(live?.context.tasks, "the service's tasks").toEqual(model.context.tasks)
    // The document says the status the plan holds pending the user's dialog, else its state's.
    const held = model.status === "active" ? model.context.pendingDocument : null
    const document = parsePlanDocument((await this.files.read(this.planPath)) ?? "", this.planPath)
    expect(document.frontmatter.status, "the document's status").toBe(held ?? planStatusOf(model.value))
    expect(
      document.tasks.map(({ number, ticked }) => ({ number, ticked })),
      "the document's tasks",
    ).toEqual(model.context.tasks)
    const record = await this.repository.getSnapshot("plan", this.planPath)
    expect(record?.state, "the repository's state").toBe(stateToString(model.value))
    expect(record?.terminal, "the repository's terminal flag").toBe(model.status === "done")
    const transitions = await this.repository.listTransitions({ instanceId: this.planPath })
    expect(transitions.at(-1)?.to, "the repository's last transition").toBe(stateToString(model.value))
    this.finished = model.status === "done"
  }

  async stop(): Promise<void> {
    const open = this.dialog
    this.dialog = undefined
    open?.answer(false)
    await open?.done.catch(() => undefined)
    this.registry.stop()
  }

  private call(event: Exclude<PlanEvent, { type: "tool.use" | "dialog.allow" | "dialog.reject" | "plan.document.changed" }>): Promise<unknown> {
    const plans = this.plans
    switch (event.type) {
      case "plan.revise":
        return plans.write(SESSION, planBody(event.tasks, event.criteria))
      case "plan.approve":
        return this.held((confirm) => plans.approve(SESSION, confirm))
      case "plan.tick":
        return plans.tick(SESSION, event.task)
      case "plan.close":
        return this.held((confirm) => plans.close(SESSION, event.checks as CriterionCheck[], confirm))
      case "plan.bind":
        return plans.bind(event.sessionId, this.planPath)
      case "plan.discard":
      case "plan.supersede": {
        const successor = event.type === "plan.supersede" ? event.successor : undefined
        if (event.by === "user") return plans.discard(SESSION, { by: "user" }, event.reason, successor)
        return this.held((confirm) => plans.discard(SESSION, { by: "model", confirm }, event.reason, successor))
      }
    }
  }

  /** Starts a call that may ask the user; settles once its dialog is open (and held), or once it ended without one. */
  private held(run: (confirm: Confirm) => Promise<unknown>): Promise<unknown> {
    return new Promise((resolve, reject) => {
      let answer: (allowed: boolean) => void = () => {}
      const asked = new Promise<boolean>((settle) => {
        answer = settle
      })
      const done = run(() => {
        this.dialog = { answer, done }
        resolve(undefined)
        return asked
      })
      done.then(resolve, reject)
    })
  }

  private async answer(event: Extract<PlanEvent, { type: "dialog.allow" | "dialog.reject" }>, before: SnapshotFrom<Plan>, accepted: boolean): Promise<void> {
    const open = this.dialog
    if (before.hasTag("awaiting-user") && event.dialog !== before.context.dialog) {
      // An answer to a dialog that closed meanwhile (another process asked it) reaches the plan as any answer does,
      // and is refused; the dialog open now stays open.
      expect(accepted, "the model refuses a stale answer").toBe(false)
      await expect(this.registry.lifecycle.dispatch(this.planPath, event)).rejects.toBeInstanceOf(GateRefusal)
      return void expect(this.dialog, "the open dialog").toBe(open)
    }
    if (open === undefined) return void expect(accepted, `${event.type} with no dialog open`).toBe(false)
    this.dialog = undefined
    open.answer(event.type === "dialog.allow")
    // A plan that left its dialog another way (discarded by the user meanwhile) refuses the late answer.
    if (accepted) await open.done
    else await expect(open.done).rejects.toBeInstanceOf(GateRefusal)
  }

  /** Someone edits the document's status line; the gate's next look follows the edit, or holds it for the user. */
  private async editStatus(status: string, accepted: boolean): Promise<void> {
    const text = (await this.files.read(this.planPath)) ?? ""
    await this.files.write(this.planPath, text.replace(/^status: .*$/m, `status: ${status}`))
    await this.plans.gate(SESSION, "read")
    // Only an ended plan refuses the edit (nobody follows it): the edit is taken back.
    if (!accepted) await this.files.write(this.planPath, text)
  }
}
