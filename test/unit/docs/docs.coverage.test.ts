import { existsSync, readFileSync, readdirSync, statSync } from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import type { PluginInput } from "@opencode-ai/plugin"
import { describe, expect, it } from "vitest"
import plugin from "../../../src/server"
import { tempDir } from "../../temp.dir"

// The documentation a newcomer reads: README.md (the front) and the pages under docs/ (the reference). Three rules:
//
// 1. Every tool and every slash command the plugin registers has exactly one reference: a row of a reference table
//    whose first cell opens with its name in backticks. A tool's table has the header `| tool | … |`, a command's
//    `| slash command | … |`; the name is the code span's first word (`plan_read` of `plan_read {offset?, …}`, `/plan`
//    of `/plan`). Mentions anywhere else are free. A reference row that names nothing the plugin registers is stale.
//    The names come from the plugin itself, loaded as opencode loads it: its `tool` hook, and the commands its
//    `config` hook adds to an empty config.
// 2. Every diagram under docs/machines/ (`*.svg`) is linked from the README or a docs page.
// 3. Every relative link of those pages leads to a file that exists, and a link's `#anchor` into a markdown file to a
//    heading of that file.

const ROOT = fileURLToPath(new URL("../../../", import.meta.url))
const DOCS = path.join(ROOT, "docs")
const DIAGRAMS = path.join(DOCS, "machines")

/** README.md and every markdown file under docs/, as absolute paths. */
function pages(): string[] {
  const found: string[] = [path.join(ROOT, "README.md")]
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.name.endsWith(".md")) found.push(full)
    }
  }
  walk(DOCS)
  return found
}

const relative = (file: string) => path.relative(ROOT, file)

/** The page's lines with fenced code blocks blanked (line numbers kept): nothing in a code block is a link or a table. */
function proseLines(file: string): string[] {
  let fence: string | null = null
  return readFileSync(file, "utf8")
    .split("\n")
    .map((line) => {
      const opens = /^\s*(```|~~~)/.exec(line)?.[1]
      if (fence === null && opens !== undefined) {
        fence = opens
        return ""
      }
      if (fence !== null) {
        if (line.trimStart().startsWith(fence)) fence = null
        return ""
      }
      return line
    })
}

interface Reference {
  kind: "tool" | "slash command"
  name: string
  where: string
}

/** The rows of every reference table (header `tool` or `slash command`) of the page. */
function referenceRows(file: string): Reference[] {
  const rows: Reference[] = []
  const lines = proseLines(file)
  let kind: Reference["kind"] | null = null
  lines.forEach((line, index) => {
    if (!line.startsWith("|")) {
      kind = null
      return
    }
    const previous = lines[index - 1] ?? ""
    if (!previous.startsWith("|")) {
      const header = line.split("|")[1]?.trim()
      kind = header === "tool" || header === "slash command" ? header : null
      return
    }
    if (kind === null || /^\|\s*:?-{3,}/.test(line)) return
    const where = `${relative(file)}:${index + 1}`
    const code = /^\|\s*`([^`]+)`/.exec(line)?.[1]
    rows.push({ kind, name: code?.split(/[\s{]/)[0] ?? `(a row without a name in backticks: ${line.slice(0, 60)})`, where })
  })
  return rows
}

/** The relative link targets of the page, code spans and code blocks left out, with the line each is on. */
function links(file: string): { target: string; where: string }[] {
  const found: { target: string; where: string }[] = []
  proseLines(file).forEach((line, index) => {
    const prose = line.replace(/`[^`]*`/g, "")
    for (const match of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1] as string
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue
      found.push({ target, where: `${relative(file)}:${index + 1}` })
    }
  })
  return found
}

/** The anchors GitHub gives the headings of a markdown file: lower case, punctuation dropped, spaces as "-". */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>()
  const out = new Set<string>()
  for (const line of proseLines(file)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1]
    if (heading === undefined) continue
    const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/`/g, "")
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
      .replace(/ /g, "-")
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    out.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return out
}

/** The tool ids and slash commands the plugin registers, read from the plugin as opencode loads it. */
async function registered(): Promise<{ tools: string[]; commands: string[] }> {
  const workspace = tempDir("forge-docs-")
  const client = { app: { log: async () => ({}) } }
  const hooks = await plugin.server({ client, directory: workspace, worktree: workspace } as unknown as PluginInput, {})
  try {
    const config: { command?: Record<string, unknown> } = {}
    await hooks.config?.(config as never)
    return { tools: Object.keys(hooks.tool ?? {}), commands: Object.keys(config.command ?? {}).map((name) => `/${name}`) }
  } finally {
    await hooks.dispose?.()
  }
}

/** What is wrong with the references of one kind: names referenced never or more than once, and stale rows. */
function referenceProblems(kind: Reference["kind"], names: readonly string[]): string[] {
  const rows = pages()
    .flatMap(referenceRows)
    .filter((row) => row.kind === kind)
  const problems: string[] = []
  for (const name of names) {
    const at = rows.filter((row) => row.name === name).map((row) => row.where)
    if (at.length === 0) problems.push(`${name}: no reference row (a "| ${kind} |" table row opening with \`${name}\`)`)
    if (at.length > 1) problems.push(`${name}: ${at.length} reference rows, one is the reference (${at.join(", ")})`)
  }
  for (const row of rows) if (!names.includes(row.name)) problems.push(`${row.where}: ${row.name} is no ${kind} the plugin registers`)
  return problems
}

describe("the README and docs/ document the plugin", () => {
  it("every tool the plugin registers has exactly one reference row, and every tool reference row names one", async () => {
    const { tools } = await registered()
    expect(tools.length).toBeGreaterThan(0)
    const problems = referenceProblems("tool", tools)
    expect(problems, `tool references:\n${problems.join("\n")}`).toEqual([])
  })

  it("every slash command the plugin registers has exactly one reference row, and every command reference row names one", async () => {
    const { commands } = await registered()
    expect(commands.length).toBeGreaterThan(0)
    const problems = referenceProblems("slash command", commands)
    expect(problems, `slash command references:\n${problems.join("\n")}`).toEqual([])
  })

  it("every diagram under docs/machines is linked from the README or a docs page", () => {
    const linked = new Set(
      pages().flatMap((file) => links(file).map(({ target }) => path.resolve(path.dirname(file), decodeURI(target.split("#")[0] as string)))),
    )
    const diagrams = readdirSync(DIAGRAMS).filter((name) => name.endsWith(".svg"))
    expect(diagrams.length).toBeGreaterThan(0)
    const unlinked = diagrams.filter((name) => !linked.has(path.join(DIAGRAMS, name)))
    expect(unlinked, `diagrams no page links: ${unlinked.join(", ")}`).toEqual([])
  })

  it("every relative link of the README and the docs pages leads to a file, and its #anchor to a heading there", () => {
    const broken: string[] = []
    for (const file of pages()) {
      for (const { target, where } of links(file)) {
        const [pathPart = "", anchor] = target.split("#")
        const resolved = pathPart === "" ? file : path.resolve(path.dirname(file), decodeURI(pathPart))
        if (!existsSync(resolved)) {
          broken.push(`${where}: ${target} (no ${relative(resolved)})`)
          continue
        }
        if (anchor === undefined || !resolved.endsWith(".md") || statSync(resolved).isDirectory()) continue
        if (!anchors(resolved).has(anchor)) broken.push(`${where}: ${target} (no heading #${anchor} in ${relative(resolved)})`)
      }
    }
    expect(broken, `broken links:\n${broken.join("\n")}`).toEqual([])
  })
})
