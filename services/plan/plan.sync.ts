import { type StateValue, transition } from "xstate"
import type { PlanEvent } from "../../machines/plan/plan.machine"
import type { PlanMachineStatus } from "../../machines/plan/plan.status"
import { planStateForStatus, planStatusOf } from "../../machines/plan/plan.status"
import type { DamagedSnapshot, LifecycleRepository, Logger } from "../lifecycle/lifecycle.ports"
import { parsePlanDocument } from "./plan.document"
import type { PlanFiles } from "./plan.ports"
import type { PlanRegistry, PlanSnapshot } from "./plan.registry"
import type { PlanDocument } from "./plan.types"

export interface RestoreReport {
  restored: string[]
  reconciled: string[]
  /** Instances that could not be restored, with the reason; the host keeps running without them. */
  problems: { planPath: string; problem: string }[]
}

// The document is the truth for its plan: whenever the two disagree (a hand edit, a crash between a write and a
// commit, a dialog that died with the host) the snapshot is re-resolved from the document and the move is logged.
// Except in one direction: a document that says approved or done would pass a gate the user holds, and once it is on
// disk nobody can tell a hand edit from the model's. The machine decides (`plan.document.changed`): such a status is
// held in the context, pending the user's dialog, while tasks and criteria are followed; a change that tightens is
// followed at once.

export class PlanSync {
  private readonly registry: PlanRegistry
  private readonly files: PlanFiles
  private readonly log: Logger

  constructor(deps: { registry: PlanRegistry; files: PlanFiles; log: Logger }) {
    this.registry = deps.registry
    this.files = deps.files
    this.log = deps.log
  }

  /**
   * Reads and parses a live plan's document and brings its actor in line with it. The read and the move happen in
   * the plan's queue, so a document read before a plan tool's own write can never undo that write's move.
   */
  async fromDocument(planPath: string): Promise<PlanDocument> {
    let doc: PlanDocument | undefined
    const readDoc = async (): Promise<PlanDocument> => {
      const text = await this.files.read(planPath)
      if (text === undefined) throw new Error(`plan document ${planPath} is missing: restore the file, or discard the plan with /plan discard`)
      doc = parsePlanDocument(text, planPath)
      return doc
    }
    if (!this.registry.lifecycle.has(planPath)) return readDoc()
    const moved = await this.registry.lifecycle.follow(
      planPath,
      async (snapshot) => {
        const read = await readDoc()
        // A finished plan accepts no further changes: its document is read, never followed.
        if (snapshot === undefined || snapshot.status !== "active" || agrees(snapshot, read)) return undefined
        return this.targetFor(planPath, read, snapshot.context.sessionId, snapshot)
      },
      "document.reconcile",
    )
    if (moved !== undefined) this.registry.track(moved)
    return doc as PlanDocument
  }

  /** Starts an actor for a document that has none (a hand-written plan, or one finished before a restart). */
  async adopt(planPath: string, sessionId: string): Promise<PlanSnapshot> {
    const text = await this.files.read(planPath)
    if (text === undefined) throw new Error(`plan document ${planPath} does not exist`)
    const doc = parsePlanDocument(text, planPath)
    return this.resolve(planPath, doc, sessionId)
  }

  /** Restores every non-terminal plan actor of the workspace and reconciles each with its document. */
  async restore(repository: LifecycleRepository): Promise<RestoreReport> {
    const report: RestoreReport = { restored: [], reconciled: [], problems: [] }
    const damaged: DamagedSnapshot[] = []
    const records = await repository.loadSnapshots({ machineId: this.registry.lifecycle.machine.id, includeTerminal: false, onDamaged: (d) => damaged.push(d) })
    // Every record is restored first. A document is read only where it may say something else: a record that does
    // not fit, a dialog (it never survives its host), or a document changed since the record was written. An edit
    // that slips past its modification time is still followed: the gate reads each plan's document on its first look.
    const restored = records.map((record) => ({ record, outcome: this.registry.lifecycle.restore(record) }))
    const toRead = restored.map(
      ({ record, outcome }) =>
        outcome.kind === "unfit" || outcome.snapshot.hasTag("awaiting-user") || !this.unchangedSince(record.instanceId, record.updatedAt),
    )
    // The documents are read side by side (a workspace may hold a thousand live plans); each is then followed in turn.
    const texts = await readEach(
      restored.map(({ record }, index) => (toRead[index] ? record.instanceId : undefined)),
      (planPath) => this.files.read(planPath).catch(() => undefined),
    )
    for (const [index, { record, outcome }] of restored.entries()) {
      const planPath = record.instanceId
      if (outcome.kind === "restored" && !toRead[index]) {
        this.registry.track(outcome.snapshot)
        report.restored.push(planPath)
        continue
      }
      const text = texts[index]
      let doc: PlanDocument | undefined
      try {
        doc = text === undefined ? undefined : parsePlanDocument(text, planPath)
      } catch (error) {
        report.problems.push({ planPath, problem: `document does not parse: ${message(error)}` })
      }
      if (outcome.kind === "restored") {
        const { snapshot } = outcome
        this.registry.track(snapshot)
        report.restored.push(planPath)
        // A dialog never survives its host: a plan restored mid-dialog goes back to where the document says it is.
        if (doc !== undefined && (snapshot.hasTag("awaiting-user") || !agrees(snapshot, doc))) {
          await this.resolve(planPath, doc, snapshot.context.sessionId, snapshot)
          report.reconciled.push(planPath)
        }
        if (text === undefined)
          report.problems.push({ planPath, problem: "document is missing; the plan stays as it was until the file is back or the plan is discarded" })
        continue
      }
      if (doc === undefined) {
        report.problems.push({ planPath, problem: `snapshot does not fit the plan machine (${outcome.problem}) and no readable document can replace it` })
        continue
      }
      // The snapshot no longer fits this machine version: the document still says where the plan stands.
      await this.resolve(planPath, doc, record.sessionId)
      report.reconciled.push(planPath)
      report.problems.push({ planPath, problem: `snapshot did not fit the plan machine (${outcome.problem}); rebuilt from the document` })
    }
    // A row that cannot even be decoded costs only its own plan: the document, where readable, says where it stands.
    for (const damage of damaged) await this.rebuildDamaged(damage, report)
    for (const problem of report.problems) this.log.warn(`plan ${problem.planPath}: ${problem.problem}`)
    return report
  }

  /** The document has not changed since `at` (epoch ms): Forge writes it before it commits, so it says what the record says. */
  private unchangedSince(planPath: string, at: number): boolean {
    const modified = this.files.modifiedAt(planPath)
    // Records are stamped in whole milliseconds, file times in fractions of one.
    return modified !== undefined && Math.floor(modified) <= at
  }

  private async rebuildDamaged(damage: DamagedSnapshot, report: RestoreReport): Promise<void> {
    const planPath = damage.instanceId
    try {
      const text = await this.files.read(planPath)
      if (text === undefined) throw new Error("the document is missing")
      await this.resolve(planPath, parsePlanDocument(text, planPath), damage.sessionId)
      report.reconciled.push(planPath)
      report.problems.push({ planPath, problem: `${damage.problem}; rebuilt from the document` })
    } catch (error) {
      report.problems.push({ planPath, problem: `${damage.problem}, and no readable document can replace it (${message(error)})` })
    }
  }

  /** Resolves the plan from its document; `current` (a restored snapshot) has its dialog closed first: none survives its host. */
  private async resolve(planPath: string, doc: PlanDocument, sessionId: string | null, current?: PlanSnapshot): Promise<PlanSnapshot> {
    const resting =
      current === undefined
        ? this.unbacked(planPath, doc, sessionId)
        : (this.registry.lifecycle.machine.resolveState({
            value: planStateForStatus(planStatusOf(current.value)),
            context: { ...current.context, pendingChecks: null, pendingDiscard: null },
          }) as PlanSnapshot)
    const { value, context, event } = this.targetFor(planPath, doc, sessionId, resting)
    const snapshot = await this.registry.lifecycle.reconcile(planPath, value, context, event ?? "document.reconcile")
    this.registry.track(snapshot)
    return snapshot
  }

  /**
   * A document no record backs (a live plan rebuilt from its document, one adopted by /plan resume) says only what was
   * written into it, by the user or by the model. So it starts as the draft it describes, and the machine decides on
   * its status as on an edit of a recorded plan's document: one that passes a gate the user holds (approved, done)
   * is held for /plan confirm.
   */
  private unbacked(planPath: string, doc: PlanDocument, sessionId: string | null): PlanSnapshot {
    const draft = this.targetFor(planPath, { ...doc, frontmatter: { ...doc.frontmatter, status: "draft" } }, sessionId)
    return this.registry.lifecycle.machine.resolveState({ value: draft.value, context: draft.context }) as PlanSnapshot
  }

  /**
   * Where the document says the plan stands, as a state value and a context for the machine to resolve. For a live
   * `current`, the machine decides first (`plan.document.changed`, computed purely): a status it holds stays pending
   * with tasks and criteria followed; any other status only tightens (or says the plan's own status again) and is
   * followed as the document says.
   */
  private targetFor(
    planPath: string,
    doc: PlanDocument,
    sessionId: string | null,
    current?: PlanSnapshot,
  ): { value: StateValue; context: PlanSnapshot["context"]; event?: string } {
    const status = doc.frontmatter.status as PlanMachineStatus
    const tasks = doc.tasks.map((t) => ({ number: t.number, ticked: t.ticked }))
    const criteria = doc.criteria.map((c) => c.text)
    let kept: PlanSnapshot | undefined
    if (current !== undefined && current.status === "active") {
      const event: PlanEvent = { type: "plan.document.changed", status, tasks, criteria }
      const [after] = transition(this.registry.lifecycle.machine, current, event)
      // Held: the plan stays where it is, logged as the machine's own step. Otherwise the document is followed below.
      if (after.context.pendingDocument !== null) return { value: after.value, context: after.context, event: event.type }
      // The same status again keeps an open dialog open.
      if (planStatusOf(after.value) === status) kept = after
    }
    const previous = this.registry.snapshot(planPath)?.context
    const context = {
      planPath,
      sessionId: doc.frontmatter.session ?? sessionId,
      tasks,
      criteria,
      pendingChecks: kept?.context.pendingChecks ?? null,
      pendingDiscard: kept?.context.pendingDiscard ?? null,
      reason: previous?.reason ?? null,
      successor: doc.frontmatter.successor ?? previous?.successor ?? null,
      pendingDocument: null,
      // Never counted back: an answer to a dialog closed by this change must stay refused after the next one opens.
      dialog: kept?.context.dialog ?? current?.context.dialog ?? previous?.dialog ?? 0,
    }
    return { value: kept?.value ?? planStateForStatus(status), context }
  }
}

/**
 * Whether the actor already says what the document says: its status (or the status it holds pending the user), tasks
 * and criteria, and no dialog left open.
 */
function agrees(snapshot: PlanSnapshot, doc: PlanDocument): boolean {
  const { context } = snapshot
  const pending = context.pendingDocument ?? null
  if ((pending ?? planStatusOf(snapshot.value)) !== doc.frontmatter.status) return false
  if (snapshot.hasTag("awaiting-user")) return true
  if (context.tasks.length !== doc.tasks.length || context.criteria.length !== doc.criteria.length) return false
  return (
    doc.tasks.every((t, i) => context.tasks[i]?.number === t.number && context.tasks[i]?.ticked === t.ticked) &&
    doc.criteria.every((c, i) => context.criteria[i] === c.text)
  )
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** How many documents a restore reads at once. */
const READ_CONCURRENCY = 16

/** `read` of every path given (undefined: skipped), at most READ_CONCURRENCY at a time, in the order given. */
async function readEach(paths: readonly (string | undefined)[], read: (path: string) => Promise<string | undefined>): Promise<(string | undefined)[]> {
  const texts: (string | undefined)[] = new Array(paths.length)
  let next = 0
  const worker = async (): Promise<void> => {
    for (let index = next++; index < paths.length; index = next++) {
      const path = paths[index]
      if (path !== undefined) texts[index] = await read(path)
    }
  }
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, paths.length) }, worker))
  return texts
}
