import { rm } from "node:fs/promises"
import { isAbsolute, join, relative, resolve } from "node:path"
import { machineCatalog } from "../machines/index"
import { DIAGRAMS_DIR, diagramFiles, orphanDiagramFiles, staleDiagramFiles, writeDiagramFiles } from "./diagram.files"

// `npm run viz`: writes docs/machines/<id>.mmd and <id>.svg for every machine of the catalog.
// `npm run viz -- --check`: writes nothing, exits 1 naming every diagram that is missing, differs or is left over.

const USAGE = "usage: npm run viz [-- --check] [-- --out <dir>]"

interface Options {
  check: boolean
  out: string
}

function parseArgs(argv: readonly string[]): Options {
  const options: Options = { check: false, out: DIAGRAMS_DIR }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === "--check") options.check = true
    else if (arg === "--out") {
      const dir = argv[++i]
      if (!dir) throw new Error(`--out needs a folder. ${USAGE}`)
      options.out = resolve(dir)
    } else throw new Error(`unknown argument "${arg}". ${USAGE}`)
  }
  return options
}

async function main(argv: readonly string[]): Promise<number> {
  const options = parseArgs(argv)
  const files = await diagramFiles(machineCatalog)
  const shown = (name: string): string => {
    const path = join(options.out, name)
    const rel = relative(process.cwd(), path)
    return rel.startsWith("..") || isAbsolute(rel) ? path : rel
  }
  const orphans = await orphanDiagramFiles(options.out, files)
  if (options.check) {
    const stale = await staleDiagramFiles(options.out, files)
    if (!stale.length && !orphans.length) {
      console.log(`diagrams up to date (${files.length} files)`)
      return 0
    }
    for (const name of stale) console.error(`stale: ${shown(name)}`)
    for (const name of orphans) console.error(`no machine: ${shown(name)}`)
    console.error("run npm run viz to regenerate the diagrams")
    return 1
  }
  const changed = await writeDiagramFiles(options.out, files)
  for (const name of orphans) await rm(join(options.out, name), { force: true })
  for (const name of changed) console.log(`wrote ${shown(name)}`)
  for (const name of orphans) console.log(`removed ${shown(name)}`)
  console.log(`${files.length} diagram files, ${changed.length} changed, ${orphans.length} removed`)
  return 0
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    console.error(`viz: ${error instanceof Error ? error.message : String(error)}`)
    process.exitCode = 2
  },
)
