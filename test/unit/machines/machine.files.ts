import { readdirSync } from "node:fs"
import { join } from "node:path"
import { type AnyStateMachine, StateMachine } from "xstate"

// Where each lifecycle machine's source is: one folder per lifecycle, machines/<lifecycle>/<name>.machine.ts, each file
// exporting one machine. The extractor comparison reads these files, so a catalog machine without one would go unread.

/** The machine files under `dir`'s lifecycle folders, as "<folder>/<file>", sorted. */
export function machineFilesIn(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((folder) =>
      readdirSync(join(dir, folder.name))
        .filter((name) => name.endsWith(".machine.ts"))
        .map((name) => `${folder.name}/${name}`),
    )
    .sort()
}

/** The machines a module exports. */
export function machinesExportedBy(exports: Record<string, unknown>): AnyStateMachine[] {
  return Object.values(exports).filter((value): value is AnyStateMachine => value instanceof StateMachine)
}

/**
 * The file of every machine of `catalog`, by machine id, from what each file exports. Throws naming every catalog
 * machine no file exports, and every file that exports no catalog machine (or more than one machine).
 */
export function catalogFiles(catalog: readonly AnyStateMachine[], exported: ReadonlyMap<string, readonly AnyStateMachine[]>): Map<string, string> {
  const problems: string[] = []
  const files = new Map<string, string>()
  for (const [file, machines] of exported) {
    const [machine] = machines
    if (machines.length !== 1 || machine === undefined) problems.push(`${file} exports ${machines.length} machines: a machine file exports exactly one`)
    else if (!catalog.includes(machine)) problems.push(`${file} exports the machine "${machine.id}", which is not in machineCatalog (machines/index.ts)`)
    else files.set(machine.id, file)
  }
  for (const machine of catalog) {
    if (!files.has(machine.id)) {
      problems.push(`machineCatalog's machine "${machine.id}" has no file: no machines/<lifecycle>/*.machine.ts exports it`)
    }
  }
  if (problems.length > 0) throw new Error(`machine files and machineCatalog disagree:\n  ${problems.join("\n  ")}`)
  return files
}
