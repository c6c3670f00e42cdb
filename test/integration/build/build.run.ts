import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { join, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

// Helpers shared by the build tests: run the build script, and import a built module in a fresh runtime.

export const REPO = resolve(fileURLToPath(new URL("../../../", import.meta.url)))
export const BUILD_SCRIPT = join(REPO, "scripts", "build.mjs")
export const FIXTURE_ROOT = join(REPO, "test", "integration", "build", "fixtures", "project")
/** The Bun that opencode embeds: `BUN_BE_BUN=1` turns the opencode binary into it. */
export const OPENCODE_BIN = join(REPO, "node_modules", "opencode-linux-x64", "bin", "opencode")

export interface RunResult {
  status: number | null
  stdout: string
  stderr: string
}

export function run(command: string, args: readonly string[], env: Record<string, string> = {}): RunResult {
  const result = spawnSync(command, args, {
    cwd: REPO,
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, ...env },
  })
  if (result.error) throw result.error
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

export function runBuild(args: readonly string[] = []): RunResult {
  return run(process.execPath, [BUILD_SCRIPT, ...args])
}

export interface ModuleShape {
  exports: string[]
  id: unknown
  serverType: string
}

// Prints what the module exports; run as a separate process so the module is loaded exactly as a host would.
const PROBE = `
const mod = await import(process.env.PROBE_URL)
const shape = { exports: Object.keys(mod).sort(), id: mod.default?.id ?? null, serverType: typeof mod.default?.server }
console.log("PROBE " + JSON.stringify(shape))
`

function parseProbe(result: RunResult, file: string): ModuleShape {
  const line = result.stdout.split("\n").find((l) => l.startsWith("PROBE "))
  if (result.status !== 0 || !line) {
    throw new Error(`importing ${file} failed (exit ${result.status}):\n${result.stderr}${result.stdout}`)
  }
  return JSON.parse(line.slice("PROBE ".length)) as ModuleShape
}

/** Imports `file` with Node (the runtime of harnesses and the CLI). */
export function importWithNode(file: string): ModuleShape {
  const url = pathToFileURL(file).href
  return parseProbe(run(process.execPath, ["--input-type=module", "-e", PROBE], { PROBE_URL: url }), file)
}

/** Imports `file` with the Bun inside opencode (the runtime the plugin really runs in). */
export function importWithBun(file: string): ModuleShape {
  if (!existsSync(OPENCODE_BIN)) throw new Error(`the opencode binary is missing at ${OPENCODE_BIN}: run npm install`)
  const url = pathToFileURL(file).href
  return parseProbe(run(OPENCODE_BIN, ["-e", PROBE], { PROBE_URL: url, BUN_BE_BUN: "1" }), file)
}

/** Relative module specifiers (`./x`, `../x`) in static imports, re-exports and dynamic imports of `code`. */
export function relativeImports(code: string): string[] {
  const found: string[] = []
  const specifier = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)(["'`])(\.{1,2}\/[^"'`]*)\1/g
  for (const m of code.matchAll(specifier)) found.push(m[2] ?? "")
  return found
}

const LOADS = `
const failed = []
for (const url of JSON.parse(process.env.LOAD_URLS)) {
  try { await import(url) } catch (error) { failed.push(url.split("/").pop() + ": " + (error instanceof Error ? error.message : String(error))) }
}
console.log("LOADS " + JSON.stringify(failed))
`

/** Imports each file, in Node and in opencode's Bun: what failed to load in each, with its error. */
export function loadFailures(files: readonly string[]): { node: string[]; bun: string[] } {
  const env = { LOAD_URLS: JSON.stringify(files.map((file) => pathToFileURL(file).href)) }
  const parse = (result: RunResult, where: string): string[] => {
    const line = result.stdout.split("\n").find((l) => l.startsWith("LOADS "))
    if (line === undefined) throw new Error(`${where} printed no result (exit ${result.status}):\n${result.stderr}`)
    return JSON.parse(line.slice("LOADS ".length)) as string[]
  }
  return {
    node: parse(run(process.execPath, ["--input-type=module", "-e", LOADS], env), "node"),
    bun: parse(run(OPENCODE_BIN, ["-e", LOADS], { ...env, BUN_BE_BUN: "1" }), "opencode's Bun"),
  }
}
