import { mkdir, readFile, readdir, rename, rm, writeFile } from "node:fs/promises"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import type { AnyStateMachine } from "xstate"
import { toMermaid } from "./mermaid"
import { toSvg } from "./svg"

// The committed diagram files: one `<id>.mmd` and one `<id>.svg` per machine, in docs/machines/.

/** The committed diagrams folder, docs/machines/ at the repository root. */
export const DIAGRAMS_DIR = fileURLToPath(new URL("../docs/machines/", import.meta.url))

export interface DiagramFile {
  /** File name inside the diagrams folder, e.g. "plan.mmd". */
  name: string
  content: string
}

/** The files every machine of the catalog should have, in catalog order (.mmd then .svg per machine). */
export async function diagramFiles(machines: readonly AnyStateMachine[]): Promise<DiagramFile[]> {
  const seen = new Set<string>()
  const out: DiagramFile[] = []
  for (const machine of machines) {
    if (!/^[A-Za-z0-9_.-]+$/.test(machine.id) || machine.id.startsWith(".")) {
      throw new Error(`machine id "${machine.id}" cannot be a file name: use letters, digits, "_", "-" or "."`)
    }
    if (seen.has(machine.id)) throw new Error(`two machines in the catalog share the id "${machine.id}"`)
    seen.add(machine.id)
    out.push({ name: `${machine.id}.mmd`, content: toMermaid(machine) })
    out.push({ name: `${machine.id}.svg`, content: await toSvg(machine) })
  }
  return out
}

/** Names of the files in `dir` that are missing or differ from `files`. */
export async function staleDiagramFiles(dir: string, files: readonly DiagramFile[]): Promise<string[]> {
  const stale: string[] = []
  for (const file of files) {
    const current = await readFile(join(dir, file.name), "utf8").catch(() => null)
    if (current !== file.content) stale.push(file.name)
  }
  return stale
}

/** Diagram files (.mmd, .svg) in `dir` that belong to no machine of `files`, sorted by name. */
export async function orphanDiagramFiles(dir: string, files: readonly DiagramFile[]): Promise<string[]> {
  const wanted = new Set(files.map((f) => f.name))
  const present = await readdir(dir).catch(() => [] as string[])
  return present.filter((name) => /\.(mmd|svg)$/.test(name) && !wanted.has(name)).sort()
}

/** Writes each file whole (temp file in the same folder, then rename); returns the names that changed. */
export async function writeDiagramFiles(dir: string, files: readonly DiagramFile[]): Promise<string[]> {
  await mkdir(dir, { recursive: true })
  const changed = await staleDiagramFiles(dir, files)
  for (const file of files) {
    if (!changed.includes(file.name)) continue
    const target = join(dir, file.name)
    const temp = join(dirname(target), `.${file.name}.${process.pid}.tmp`)
    try {
      await writeFile(temp, file.content, "utf8")
      await rename(temp, target)
    } catch (error) {
      await rm(temp, { force: true })
      throw error
    }
  }
  return changed
}
