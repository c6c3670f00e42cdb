import { machineCatalog } from "../machines/index"
import { stateToString } from "../machines/state.text"
import { type ModelPathState, type ModelPaths, modelPaths } from "../testing/model.paths"

// `forgecharts paths <machine> [--json]`: the model-based paths of a machine, the replays its model test runs, for
// other harnesses to replay (testing/model.paths.ts). On a terminal, stderr counts the paths as they are found.

/** What `paths` prints, or the usage error that says what to give instead (exit 2). */
export type PathsOutcome = { text: string } | { error: string }

export function pathsOutput(machineId: string | undefined, json: boolean): PathsOutcome {
  const ids = machineCatalog.map((m) => m.id).join(", ")
  if (machineId === undefined) return { error: `name a machine: one of ${ids}` }
  if (!machineCatalog.some((m) => m.id === machineId)) return { error: `no machine "${machineId}": the machines are ${ids}` }
  const paths = modelPaths(machineId, progressOf(machineId))
  if (process.stderr.isTTY) process.stderr.write("\r\x1b[K")
  return { text: json ? `${JSON.stringify(paths, null, 2)}\n` : pathsText(paths) }
}

/** A `paths <machine>: N found…` line on a terminal, overwritten at most ten times a second; nothing when piped. */
function progressOf(machineId: string): ((found: number) => void) | undefined {
  if (!process.stderr.isTTY) return undefined
  let shown = 0
  return (found) => {
    if (Date.now() - shown < 100) return
    shown = Date.now()
    process.stderr.write(`\rpaths ${machineId}: ${found} found…`)
  }
}

/** Where a step leads, as logs write it: the state, then the states of the machines it invokes (a loop's pass). */
const placeText = ({ state, children }: ModelPathState): string => [state, ...Object.values(children ?? {})].map(stateToString).join(".")

/** A name cut to its first 100 characters: the events' payloads are the JSON form's. */
const shortName = (name: string): string => (name.length > 100 ? `${name.slice(0, 99)}…` : name)

/**
 * One line per path: its number in the JSON form, config and name, then where the machine starts and each event's
 * type with where it leads; then the coverage.
 */
export function pathsText({ paths, coverage }: ModelPaths): string {
  const lines = paths.map(({ name, config, initial, steps }, i) => {
    const walk = steps.map((step) => `${step.event.type} → ${placeText(step)}`)
    return `#${i + 1} [${config}] ${shortName(name)}: ${[placeText(initial), ...walk].join(", ")}`
  })
  const covered = coverage.map(({ machine, taken, total }) => `transition coverage of ${machine}: ${taken}/${total} (${((100 * taken) / total).toFixed(1)} %)`)
  return `${[...lines, ...covered].join("\n")}\n`
}
