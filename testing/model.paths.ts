import type { AnyMachineSnapshot, AnyStateMachine, EventObject, StateValue } from "xstate"
import { step } from "../services/lifecycle/lifecycle.step"
import { type CoverageReport, TransitionCoverage } from "./model.coverage"
import { type ModelWorlds, modelWorlds } from "./model.catalog"
import { initialSnapshot } from "./model.host"
import { type ModelWorld, modelReplays } from "./model.world"

// A machine's model-based paths as plain JSON, for other harnesses to replay: the very replays Forge's model test of
// the machine runs (model.world.ts), each with the state value the machine reaches after every event, and the
// transition coverage the whole set reaches. The same machine gives the same JSON.

/** Where the machine is: its state value, and those of the machines it invokes that run (a loop's `pass`). */
export interface ModelPathState {
  state: StateValue
  /** By invocation id; absent when none runs. */
  children?: Record<string, StateValue>
}

/** One event of a path and where the machine is after it (unchanged where the machine refuses it). */
export interface ModelPathStep extends ModelPathState {
  event: EventObject
  /** Whether the machine takes the event (`can()`, and every machine it hands the event on to takes it): a service must refuse it where not. */
  accepted: boolean
}

export interface ModelPath {
  /** The model test's name for the path: the state its search reached and the events that reach it. */
  name: string
  /** The config (the machine's input) the path starts from, by name. */
  config: string
  input: unknown
  /** Where the machine starts, given the input. */
  initial: ModelPathState
  steps: ModelPathStep[]
  /** Where the path ends, and whether the machine is still active there or done. */
  final: ModelPathState & { status: AnyMachineSnapshot["status"] }
}

export interface ModelPaths {
  machine: string
  paths: ModelPath[]
  /** The machine's transition coverage over every path, then that of each machine it invokes. */
  coverage: CoverageReport[]
}

/** Where a snapshot is: its value, and those of its running invoked machines. */
function where(snapshot: AnyMachineSnapshot): ModelPathState {
  const running = Object.entries(snapshot.children as Record<string, { getSnapshot(): AnyMachineSnapshot } | undefined>).flatMap(([id, ref]) => {
    const child = ref?.getSnapshot()
    return child?.status === "active" ? [[id, child.value] as const] : []
  })
  return running.length === 0 ? { state: snapshot.value } : { state: snapshot.value, children: Object.fromEntries(running) }
}

/** The machine ids with a model world, in the catalog's order. */
export const modelPathMachines: readonly string[] = Object.keys(modelWorlds)

/**
 * The paths of a machine's model world (the catalog's, by machine id). `onPath` is told how many paths are found so
 * far, after each one (a terminal can show progress).
 */
export function modelPaths(machineId: string, onPath?: (found: number) => void): ModelPaths {
  if (!Object.hasOwn(modelWorlds, machineId)) throw new Error(`no model world for "${machineId}": the machines are ${modelPathMachines.join(", ")}`)
  // Each world is typed by its machine; the paths only need what every machine has.
  return modelPathsOf(modelWorlds[machineId as keyof ModelWorlds] as unknown as ModelWorld<AnyStateMachine>, onPath)
}

/** The paths of a model world of your own (a catalog world's factory with your options, say), as `modelPaths` gives them. */
export function modelPathsOf<M extends AnyStateMachine>(world: ModelWorld<M>, onPath?: (found: number) => void): ModelPaths {
  const coverage = new TransitionCoverage(world.machine)
  const paths: ModelPath[] = []
  for (const { name: config, input } of world.configs) {
    const start: AnyMachineSnapshot = initialSnapshot(world.machine, input)
    // Replays share their beginnings (a path and its extensions): each beginning is stepped once.
    const reached = new Map<string, { snapshot: AnyMachineSnapshot; accepted: boolean }>()
    for (const { events, label } of modelReplays(world, input)) {
      coverage.record(input, events)
      let snapshot = start
      let key = ""
      const steps = events.map((event): ModelPathStep => {
        key += `${JSON.stringify(event)}\n`
        let known = reached.get(key)
        if (known === undefined) {
          const next = step(world.machine, snapshot, event)
          known = { snapshot: next.snapshot, accepted: snapshot.can(event) && !next.refused }
          reached.set(key, known)
        }
        snapshot = known.snapshot
        return { event, accepted: known.accepted, ...where(snapshot) }
      })
      paths.push({ name: label, config, input, initial: where(start), steps, final: { ...where(snapshot), status: snapshot.status } })
      onPath?.(paths.length)
    }
  }
  return { machine: world.machine.id, paths, coverage: coverage.reports() }
}
