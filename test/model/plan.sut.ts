import { readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { expect } from "vitest"
import type { SnapshotFrom } from "xstate"
import type { CriterionCheck, PlanTaskState } from "../../machines/plan/plan.gates"
import type { PlanEvent, planMachine } from "../../machines/plan/plan.machine"
import { explainPlanRefusal } from "../../machines/plan/plan.refusals"
import { planStatusOf } from "../../machines/plan/plan.status"
import { stateToString } from "../../machines/state.text"
import { GateRefusal } from "../../services/lifecycle/gate.refusal"
import { parsePlanDocument } from "../../services/plan/plan.document"
import type { Confirm } from "../../services/lifecycle/lifecycle.ports"
import { type ComposedRuntime, createForgeRuntime } from "../../src/runtime"
import { type LifecycleStore, openLifecycleStore } from "../../adapters/storage/lifecycle.store"
import { memoryLogger, tempWorkspace } from "../integration/plan/plan.helpers"
import { ramTempDir } from "../temp.dir"
import type { ModelSut } from "../../testing"
import { seedMigratedDatabase } from "./migrated.database"

type Snapshot = SnapshotFrom<typeof planMachine>

export const SESSION = "ses_model"

/** Renders the plan body a model context describes, so a revise event can be replayed through plan_write. */
function bodyFor(tasks: readonly PlanTaskState[], criteria: readonly string[]): string {
  const taskLines = tasks.map((t) => `- [${t.ticked ? "x" : " "}] ${t.number}. Task ${t.number}`)
  return ["# Model plan", "", "## Tasks", ...taskLines, "", "## Acceptance Criteria", ...criteria.map((c) => `- ${c}`), ""].join("\n")
}

/** The one factory of the plan SUT, as the model template drives it. */
export async function startPlanSut(input: { tasks: PlanTaskState[]; criteria: string[] }): Promise<ModelSut<typeof planMachine>> {
  const sut = await PlanSut.start(input.tasks, input.criteria)
  return {
    apply: ({ event, before, accepted }) => sut.apply(event, before, accepted),
    agreesWith: (model) => sut.agreesWith(model),
    stop: () => sut.stop(),
  }
}

/**
 * The system under test for one model path: the real runtime (service, files, SQLite) over a fresh workspace. Each
 * model event is replayed through the service's public API; dialogs are held open until the model answers them.
 */
class PlanSut {
  private pending: { answer: (allowed: boolean) => void; done: Promise<unknown> } | undefined
  private constructor(
    private readonly ws: ReturnType<typeof tempWorkspace>,
    readonly rt: ComposedRuntime,
    readonly planPath: string,
  ) {}

  static async start(tasks: PlanTaskState[], criteria: string[]): Promise<PlanSut> {
    const ws = tempWorkspace(ramTempDir("forge-plan-model-"))
    await seedMigratedDatabase(ws.dir)
    const rt = await createForgeRuntime({ workspace: ws.dir, clock: ws.clock, log: memoryLogger() })
    const { planPath } = await rt.plans.write(SESSION, bodyFor(tasks, criteria))
    return new PlanSut(ws, rt, planPath)
  }

  /** Replays one event; `accepted` is the model's verdict (`can()` before the event) that the SUT must match. */
  private finished = false

  async apply(event: PlanEvent, before: Snapshot, accepted: boolean): Promise<void> {
    if (event.type === "tool.use") {
      // A finished plan has no transitions at all, and the gate only ever asks live plans: nothing is banned.
      if (this.finished) accepted = true
      const refusal = await this.rt.plans.gate(SESSION, event.tool)
      expect(refusal === null, `gate for ${event.tool}`).toBe(accepted)
      return
    }
    if (event.type === "dialog.allow" || event.type === "dialog.reject") {
      if (before.hasTag("awaiting-user") && event.dialog !== before.context.dialog) return this.answerStale(event, before, accepted)
      if (!this.pending) {
        expect(accepted, `the model expects an open dialog for ${event.type}`).toBe(false)
        return
      }
      const { answer, done } = this.pending
      this.pending = undefined
      answer(event.type === "dialog.allow")
      if (accepted) await done
      // The plan left its confirming state another way (discarded meanwhile): the late answer must be refused.
      else await expect(done).rejects.toBeInstanceOf(GateRefusal)
      return
    }
    if (event.type === "plan.document.changed") {
      // Someone (the user, the model's edit or sed) rewrites the status line; the gate's next look follows or holds it.
      const file = path.join(this.ws.dir, this.planPath)
      const text = readFileSync(file, "utf8")
      writeFileSync(file, text.replace(/^status: .*$/m, `status: ${event.status}`))
      await this.rt.plans.gate(SESSION, "read")
      // Refused only by a finished plan, which nobody follows: the probe's edit is taken back.
      if (!accepted) writeFileSync(file, text)
      return
    }
    if (event.type === "plan.revise" && this.finished) {
      // plan_write after a plan has ended starts a new plan; this instance must stay exactly as it was.
      const { planPath } = await this.rt.plans.write(SESSION, bodyFor(event.tasks, event.criteria))
      expect(planPath).not.toBe(this.planPath)
      expect(accepted).toBe(false)
      return
    }
    const attempt = this.call(event)
    if (accepted) {
      await attempt
      return
    }
    await expect(attempt, `${event.type} must be refused`).rejects.toThrow()
    await attempt.catch((error: unknown) => {
      // Refusals the machine makes carry its words; only "no live plan" is the service's own (after a final state).
      if (!(error instanceof GateRefusal)) expect(String(error)).toMatch(/no live plan|already has a live plan/)
    })
  }

  /**
   * An answer to a dialog that closed while it was open (one this process or another asked before): it reaches the
   * machine as any process's answer does, and is refused in the machine's words. The dialog held open stays open.
   */
  private async answerStale(event: Extract<PlanEvent, { type: "dialog.allow" | "dialog.reject" }>, before: Snapshot, accepted: boolean): Promise<void> {
    expect(accepted, "the model refuses a stale answer").toBe(false)
    const held = this.pending
    expect(held, "the SUT holds the open dialog").toBeDefined()
    const refused = await this.rt.registry.lifecycle.dispatch(this.planPath, event).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(refused).toBeInstanceOf(GateRefusal)
    expect((refused as Error).message).toBe(explainPlanRefusal(before, event))
    expect((refused as Error).message).toMatch(/^answer refused: it is for dialog /)
    expect(this.pending, "the held dialog is still open").toBe(held)
  }

  /** The real service, the document on disk and the database all say what the model says. */
  async agreesWith(model: Snapshot): Promise<void> {
    await this.rt.registry.lifecycle.idle()
    const actor = this.rt.registry.snapshot(this.planPath)
    expect(actor?.value, "service state").toEqual(model.value)
    expect(actor?.context.tasks, "service tasks").toEqual(model.context.tasks)
    const doc = parsePlanDocument(readFileSync(path.join(this.ws.dir, this.planPath), "utf8"), this.planPath)
    // A live plan's document may say a status the plan holds pending the user; a finished one says where it ended.
    const held = model.status === "active" ? model.context.pendingDocument : null
    if (model.status === "active") expect(actor?.context.pendingDocument ?? null, "service pending document").toBe(held)
    expect(doc.frontmatter.status, "document status").toBe(held ?? planStatusOf(model.value))
    expect(
      doc.tasks.map((t) => ({ number: t.number, ticked: t.ticked })),
      "document tasks",
    ).toEqual(model.context.tasks)
    expect(
      doc.criteria.map((c) => c.text),
      "document criteria",
    ).toEqual(model.context.criteria)
    // A second connection, as any other reader of the workspace database would open.
    this.reader ??= await openLifecycleStore(this.ws.dir)
    const row = await this.reader.repository.getSnapshot("plan", this.planPath)
    expect(row?.state, "database state").toBe(stateToString(model.value))
    expect(row?.terminal, "database terminal flag").toBe(model.status === "done")
    const log = await this.reader.repository.listTransitions({ instanceId: this.planPath })
    expect(log.at(-1)?.to, "last logged transition").toBe(stateToString(model.value))
    this.finished = model.status === "done"
  }

  private reader: LifecycleStore | undefined

  async stop(): Promise<void> {
    if (this.pending) {
      const { answer, done } = this.pending
      this.pending = undefined
      answer(false)
      await done.catch(() => undefined)
    }
    await this.reader?.close()
    await this.rt.close()
    this.ws.cleanup()
  }

  private call(event: Exclude<PlanEvent, { type: "tool.use" | "dialog.allow" | "dialog.reject" | "plan.document.changed" }>): Promise<unknown> {
    const plans = this.rt.plans
    switch (event.type) {
      case "plan.revise":
        return plans.write(SESSION, bodyFor(event.tasks, event.criteria))
      case "plan.approve":
        return this.openDialog((confirm) => plans.approve(SESSION, confirm))
      case "plan.close":
        return this.openDialog((confirm) => plans.close(SESSION, event.checks as CriterionCheck[], confirm))
      case "plan.tick":
        return plans.tick(SESSION, event.task)
      case "plan.discard":
        return event.by === "user"
          ? plans.discard(SESSION, { by: "user" }, event.reason)
          : this.openDialog((confirm) => plans.discard(SESSION, { by: "model", confirm }, event.reason))
      case "plan.supersede":
        return event.by === "user"
          ? plans.discard(SESSION, { by: "user" }, event.reason, event.successor)
          : this.openDialog((confirm) => plans.discard(SESSION, { by: "model", confirm }, event.reason, event.successor))
      case "plan.bind":
        return plans.bind(event.sessionId, this.planPath)
    }
  }

  /** Starts a dialog-gated call and resolves once the dialog is open (or the call has ended without one). */
  private openDialog(run: (confirm: Confirm) => Promise<unknown>): Promise<unknown> {
    return new Promise((resolve, reject) => {
      let answer: (allowed: boolean) => void = () => undefined
      const asked = new Promise<boolean>((res) => (answer = res))
      const done = run(() => {
        this.pending = { answer, done }
        resolve(undefined)
        return asked
      })
      done.then(resolve, reject)
    })
  }
}
