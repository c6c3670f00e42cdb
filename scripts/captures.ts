// `npm run captures`: copies every dialog capture (docs/captures/<name>.txt, taken by the TUI scenarios: see
// test/e2e/README.md) into the docs pages that show it, between `<!-- capture <name> -->` and `<!-- /capture -->`, so a
// reader sees each dialog's screen without running anything. `npm run captures -- --check` writes nothing and exits 1
// naming every copy that is stale, every block whose capture does not exist, and every capture no page shows.
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
export const DOCS_DIR = path.join(ROOT, "docs")
export const CAPTURES_DIR = path.join(DOCS_DIR, "captures")

/** A capture block of a page: its marker, a fenced copy of the capture, its end marker. */
const BLOCK = /<!-- capture ([a-z0-9][a-z0-9-]*) -->\n[\s\S]*?<!-- \/capture -->/g

/** The block that shows capture `name`. */
export function captureBlock(name: string, capture: string): string {
  return `<!-- capture ${name} -->\n\`\`\`text\n${capture.endsWith("\n") ? capture : `${capture}\n`}\`\`\`\n<!-- /capture -->`
}

/** A page with every block copied from its capture; the names it shows, and those whose capture is missing. */
export function spliceCaptures(page: string, captures: ReadonlyMap<string, string>): { text: string; shown: string[]; missing: string[] } {
  const shown: string[] = []
  const missing: string[] = []
  const text = page.replace(BLOCK, (block, name: string) => {
    shown.push(name)
    const capture = captures.get(name)
    if (capture === undefined) {
      missing.push(name)
      return block
    }
    return captureBlock(name, capture)
  })
  return { text, shown, missing }
}

export function readCaptures(dir = CAPTURES_DIR): Map<string, string> {
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((file) => file.endsWith(".txt")) : []
  return new Map(files.map((file) => [file.slice(0, -".txt".length), fs.readFileSync(path.join(dir, file), "utf8")]))
}

/** Copies the captures into the pages (or, with `write` false, only looks); resolves what is wrong or stale. */
export function syncCaptures(write: boolean, docsDir = DOCS_DIR, capturesDir = CAPTURES_DIR): string[] {
  const captures = readCaptures(capturesDir)
  const problems: string[] = []
  const shownAnywhere = new Set<string>()
  for (const file of fs.readdirSync(docsDir).filter((f) => f.endsWith(".md"))) {
    const page = path.join(docsDir, file)
    const before = fs.readFileSync(page, "utf8")
    const { text, shown, missing } = spliceCaptures(before, captures)
    for (const name of shown) shownAnywhere.add(name)
    for (const name of missing) problems.push(`docs/${file} shows capture ${name}, and docs/captures/${name}.txt does not exist`)
    if (text === before) continue
    if (write) fs.writeFileSync(page, text)
    else problems.push(`docs/${file}: its copy of a capture is stale (npm run captures copies them)`)
  }
  for (const name of captures.keys())
    if (!shownAnywhere.has(name)) problems.push(`docs/captures/${name}.txt is shown on no docs page (add <!-- capture ${name} --> … <!-- /capture --> to one)`)
  return problems
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes("--check")
  const problems = syncCaptures(!check)
  for (const problem of problems) console.error(problem)
  process.exit(problems.length === 0 ? 0 : 1)
}
