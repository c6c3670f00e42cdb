import { afterAll, afterEach, describe, expect, it } from "vitest"
import type { AnyMachineSnapshot, AnyStateMachine, EventFromLogic, ExecutableActionsFrom, InputFrom, SnapshotFrom } from "xstate"
import { step } from "../services/lifecycle/lifecycle.step"
import { TransitionCoverage } from "./model.coverage"
import { initialSnapshot } from "./model.host"
import { type ModelWorld, modelReplays } from "./model.world"

// One template for every lifecycle's model test: the replays of the machine's model world (model.world.ts: shortest
// paths, each extended by every event the world offers where it ends) drive the real service (through a SUT adapter,
// built in one factory per machine), and at every step the adapter checks that the service, its store and the model
// agree. The run prints the machine's transition coverage and fails below 100 %.

/** One model step as the SUT adapter replays it: the event, the model before and after, and what the model did. */
export interface ModelStep<M extends AnyStateMachine> {
  event: EventFromLogic<M>
  before: SnapshotFrom<M>
  after: SnapshotFrom<M>
  /** The model's verdict (`can()` before the event): the SUT must accept or refuse alike. */
  accepted: boolean
  /** The effects the model asked for in this step (placeholder actions with their params, assigns included). */
  actions: ExecutableActionsFrom<M>[]
}

/** A service under test for one path, started fresh at the machine's initial state. */
export interface ModelSut<M extends AnyStateMachine> {
  apply(step: ModelStep<M>): Promise<void>
  /** The service's public answers and its store say what the model says. */
  agreesWith(model: SnapshotFrom<M>): Promise<void>
  stop(): Promise<void>
}

/** A model world (the machine, its inputs, the world's events) and the service under test that replays it. */
export interface ModelTest<M extends AnyStateMachine> extends ModelWorld<M> {
  start(input: InputFrom<M>): Promise<ModelSut<M>>
}

/** Declares the model test of one machine: one test per replay, then the coverage check. */
export function describeModel<M extends AnyStateMachine>(spec: ModelTest<M>): void {
  const coverage = new TransitionCoverage(spec.machine)
  let planned = 0
  let ran = 0

  for (const { name, input } of spec.configs) {
    const replays = modelReplays(spec, input)
    planned += replays.length

    describe(`${spec.machine.id} machine paths (${name}) against the real service and its store`, () => {
      let sut: ModelSut<M> | undefined
      afterEach(async () => {
        await sut?.stop()
        sut = undefined
      })

      for (const { events, label } of replays) {
        it(label, async () => {
          ran += 1
          coverage.record(input, events)
          const current = await spec.start(input)
          sut = current
          let before = initialSnapshot(spec.machine, input)
          await current.agreesWith(before)
          for (const event of events) {
            const { snapshot, requested, refused } = step(spec.machine, before as AnyMachineSnapshot, event)
            const after = snapshot as SnapshotFrom<M>
            const actions = requested as ExecutableActionsFrom<M>[]
            await current.apply({ event, before, after, accepted: (before as AnyMachineSnapshot).can(event) && !refused, actions })
            await current.agreesWith(after)
            before = after
          }
        })
      }
    })
  }

  afterAll(() => {
    // The machine's, and each machine it invokes (every state and transition of a loop's pass).
    const reports = coverage.reports()
    for (const { machine, taken, total, missing } of reports) {
      const percent = ((100 * taken) / total).toFixed(1)
      console.log(`transition coverage of ${machine}: ${taken}/${total} (${percent} %)${missing.length ? `\n  not covered:\n  ${missing.join("\n  ")}` : ""}`)
    }
    if (ran === planned) for (const { machine, missing } of reports) expect(missing, `transition coverage of ${machine}`).toEqual([])
  })
}
