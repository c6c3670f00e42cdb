import { describe, expect, it } from "vitest"
import { type AnyMachineSnapshot, type AnyStateMachine, type EventObject, StateMachine, initialTransition, transition } from "xstate"
import { machineCatalog } from "../../../machines/index"
import { accepts } from "../../../services/lifecycle/lifecycle.step"
import { hostLogicOf } from "../../../testing/model.host"
import { type ModelPathState, type ModelPaths, modelPathMachines, modelPaths } from "../../../testing/model.paths"

// `modelPaths` as another harness reads it: plain JSON, the same every time, every path replaying on the machine to
// where it says, and together covering every transition. A harness steps a machine with xstate's pure
// `initialTransition` and `transition`; a machine that invokes machines (the loop and its pass) is stepped as Forge's
// host steps it (`hostLogicOf`: the same pure transitions, the invoked machine's worked in).

/** Where a replayed snapshot is, as the JSON says it: its value, and those of its running invoked machines. */
function where(snapshot: AnyMachineSnapshot): ModelPathState {
  const running = Object.entries(snapshot.children as Record<string, { getSnapshot(): AnyMachineSnapshot } | undefined>).flatMap(([id, ref]) => {
    const child = ref?.getSnapshot()
    return child?.status === "active" ? [[id, child.value] as const] : []
  })
  return running.length === 0 ? { state: snapshot.value } : { state: snapshot.value, children: Object.fromEntries(running) }
}

const invokesMachines = (machine: AnyStateMachine): boolean => Object.values(machine.implementations.actors).some((actor) => actor instanceof StateMachine)

interface Stepper {
  start(input: unknown): AnyMachineSnapshot
  next(snapshot: AnyMachineSnapshot, event: EventObject): AnyMachineSnapshot
  accepts(snapshot: AnyMachineSnapshot, event: EventObject): boolean
}

/**
 * The machine's pure steps: xstate's own, or the host's for a machine that invokes (which takes an event only where
 * the machine it hands the event on to takes it too).
 */
function stepperOf(machine: AnyStateMachine): Stepper {
  if (!invokesMachines(machine))
    return {
      start: (input) => initialTransition(machine, input)[0],
      next: (snapshot, event) => transition(machine, snapshot, event)[0],
      accepts: (snapshot, event) => snapshot.can(event),
    }
  const logic = hostLogicOf(machine)
  return {
    start: (input) => logic.getInitialSnapshot({} as never, input as never),
    next: (snapshot, event) => logic.transition(snapshot, event as never, {} as never),
    accepts: (snapshot, event) => accepts(machine, snapshot, event as never),
  }
}

const machineOf = (id: string): AnyStateMachine => {
  const machine = machineCatalog.find((m) => m.id === id)
  if (machine === undefined) throw new Error(`no machine ${id}`)
  return machine
}

describe("modelPaths", () => {
  it("has a model world for every machine of the catalog, and none other", () => {
    expect(modelPathMachines).toEqual(machineCatalog.map((m) => m.id))
    expect(() => modelPaths("nope")).toThrow(/no model world for "nope": the machines are plan, job, watchdog, goal, crew, loop, loopPass/)
  })

  it("gives the same JSON for the same machine, and counts the paths as it finds them", () => {
    const counted: number[] = []
    const first = JSON.stringify(modelPaths("crew", (found) => counted.push(found)))
    const again = JSON.stringify(modelPaths("crew"))
    expect(again).toBe(first)
    const { paths } = JSON.parse(first) as ModelPaths
    expect(counted).toEqual(paths.map((_, i) => i + 1))
  })

  for (const id of machineCatalog.map((m) => m.id)) {
    it(`${id}: every path replays to where it says, and the paths cover every transition`, { timeout: 180_000 }, () => {
      const machine = machineOf(id)
      // What a harness reads: the printed JSON, parsed.
      const printed = JSON.parse(JSON.stringify(modelPaths(id))) as ModelPaths
      expect(printed.machine).toBe(id)
      expect(printed.paths.length).toBeGreaterThan(0)
      const stepper = stepperOf(machine)
      for (const path of printed.paths) {
        let snapshot = stepper.start(path.input)
        expect(where(snapshot), `${path.name}: the start`).toEqual(path.initial)
        for (const [i, { event, accepted, ...reached }] of path.steps.entries()) {
          expect(stepper.accepts(snapshot, event), `${path.name}: whether step ${i + 1} is taken, ${event.type}`).toBe(accepted)
          snapshot = stepper.next(snapshot, event)
          expect(where(snapshot), `${path.name}: after step ${i + 1}, ${event.type}`).toEqual(reached)
        }
        expect({ ...where(snapshot), status: snapshot.status }, `${path.name}: the end`).toEqual(path.final)
      }
      // The machine's own coverage first, then each machine it invokes (the loop's pass).
      expect(printed.coverage[0]?.machine).toBe(id)
      for (const report of printed.coverage) {
        expect(report.missing, `transition coverage of ${report.machine}`).toEqual([])
        expect(report.taken).toBe(report.total)
      }
    })
  }
})
