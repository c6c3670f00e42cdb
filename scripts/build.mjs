// Builds dist/ with esbuild (bundles) and the TypeScript compiler API (declarations).
//
//   node scripts/build.mjs [--root <dir>] [--out <dir>]
//
// --root (or FORGE_BUILD_ROOT) is the folder holding src/, machines/ and services/ (default: this repository);
// --out (or FORGE_BUILD_OUT) is the output folder (default: <repository>/dist). Everything is built into a
// temporary sibling folder first and moved into place only when every step succeeded, so a failed build never
// leaves a half-written dist/.
//
// Outputs:
//   server.js (+ plugin/)  the opencode plugin: every dependency bundled except bun:sqlite and sqlite3 (the storage
//                   adapter imports one of them at run time) and node builtins; its only export is `default`; what
//                   it imports lazily sits in plugin/ chunks, loaded on first use; worker threads' code sits inside
//                   as text (the *.generated.ts modules of scripts/embed-workers.ts), started as `eval` workers
//   forgecharts.js  the same plugin in one file, for copying alone into an opencode plugin folder
//   machines.js, services.js, testing.js (+ chunks/)   the embedding subpaths and the model-test template; package
//                   dependencies stay imports, so a host shares its own xstate (and testing.js its own vitest)
//   cli.js (+ cli/) the `forgecharts` command (what `viz --format svg` loads on demand sits in cli/)
//   types/          declarations of machines/, services/ and testing/ (tsconfig.build.json)
import { build } from "esbuild"
import { chmod, mkdir, readFile, readdir, rename, rm, stat, writeFile } from "node:fs/promises"
import { basename, dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const USAGE = "usage: node scripts/build.mjs [--root <dir>] [--out <dir>]"

/** Entry files, relative to the root, and what each one is. */
const ENTRIES = {
  server: ["src/server.ts", "the opencode plugin entry"],
  cli: ["src/cli.ts", "the forgecharts command"],
  machines: ["machines/index.ts", "the ./machines subpath"],
  services: ["services/index.ts", "the ./services subpath"],
  testing: ["testing/index.ts", "the ./testing subpath"],
}

// Loaded at run time by the storage adapter, whichever the runtime has: never bundled.
const RUNTIME_EXTERNALS = ["bun:sqlite", "sqlite3"]

// Bundled CommonJS dependencies call require() for node builtins; an ES module has no require of its own.
const REQUIRE_SHIM = 'import { createRequire as __forgeCreateRequire } from "node:module";\nconst require = __forgeCreateRequire(import.meta.url);'

class BuildError extends Error {}

function parseArgs(argv) {
  const options = { root: process.env.FORGE_BUILD_ROOT || REPO, out: process.env.FORGE_BUILD_OUT || join(REPO, "dist") }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === "--root" || arg === "--out") {
      const value = argv[++i]
      if (!value) throw new BuildError(`${arg} needs a folder. ${USAGE}`)
      options[arg.slice(2)] = value
    } else throw new BuildError(`unknown argument "${arg}". ${USAGE}`)
  }
  return { root: resolve(options.root), out: resolve(options.out) }
}

async function exists(path) {
  return stat(path).then(
    () => true,
    () => false,
  )
}

async function entryPaths(root) {
  const paths = {}
  const missing = []
  for (const [name, [file, what]] of Object.entries(ENTRIES)) {
    paths[name] = join(root, file)
    if (!(await exists(paths[name]))) missing.push(`missing entry ${file} (${what}) in ${root}`)
  }
  if (missing.length) throw new BuildError(missing.join("\n"))
  return paths
}

const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  keepNames: true,
  logLevel: "silent",
  metafile: true,
}

const serverCommon = {
  ...common,
  external: RUNTIME_EXTERNALS,
  // jsonc-parser's `main` is a UMD build that require()s its own files at run time, which a bundle does not hold:
  // its ES module build is bundled instead (forge.json is read through it).
  // The `inspect` option's WebSocket: opencode's Bun has a WebSocket of its own, and the `ws` package bundled for Node
  // never opens under Bun (its HTTP upgrade stays CONNECTING); isomorphic-ws's browser build takes the runtime's.
  alias: { "jsonc-parser": "jsonc-parser/lib/esm/main.js", "isomorphic-ws": "isomorphic-ws/browser.js" },
  // Less for opencode to parse at every start; identifiers stay, so stack traces still name Forge's functions.
  minifyWhitespace: true,
  minifySyntax: true,
  banner: { js: REQUIRE_SHIM },
}

// opencode refuses a plugin module with any export besides the default `{ id, server }`.
function checkPluginExports(meta) {
  if (meta.exports.length !== 1 || meta.exports[0] !== "default") {
    throw new BuildError(`src/server.ts must have exactly one export, the default { id, server }; it exports: ${meta.exports.join(", ") || "nothing"}`)
  }
}

// What the entry imports lazily (import()) is split into plugin/ chunks, so opencode parses and runs at start only
// what the plugin's load needs. forgecharts.js is the same code in one file, for an install that copies one file: its
// lazily imported modules are still evaluated only when first imported.
async function buildServer(entry, out) {
  const split = await build({
    ...serverCommon,
    entryPoints: { server: entry },
    splitting: true,
    chunkNames: "plugin/[name]-[hash]",
    outdir: out,
  })
  // Every lazily imported module is an entry point of its own chunk: the plugin's is the one built from `entry`.
  const entryMeta = Object.values(split.metafile.outputs).find((o) => o.entryPoint !== undefined && resolve(o.entryPoint) === resolve(entry))
  checkPluginExports(entryMeta)
  const single = await build({ ...serverCommon, entryPoints: [entry], write: false, outfile: join(out, "forgecharts.js") })
  const [file] = single.outputFiles
  const meta = Object.values(single.metafile.outputs)[0]
  checkPluginExports(meta)
  const relativeImports = meta.imports.filter((i) => i.path.startsWith(".")).map((i) => i.path)
  if (relativeImports.length) throw new BuildError(`the single-file bundle still imports files: ${relativeImports.join(", ")}`)
  await writeFile(join(out, "forgecharts.js"), file.contents)
}

async function buildSubpaths(entries, out) {
  await build({
    ...common,
    entryPoints: { machines: entries.machines, services: entries.services, testing: entries.testing },
    // Shared code goes to chunks/, so ./machines and ./services hand out the very same machine objects.
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
    packages: "external",
    outdir: out,
  })
}

async function buildCli(entry, out) {
  const source = await readFile(entry, "utf8")
  // The package's own dependencies stay imports (an install has them); what only the CLI uses from the development
  // tools (Graphviz in WebAssembly for `viz --format svg`) is bundled in, loaded only when asked for.
  const { dependencies = {} } = JSON.parse(await readFile(join(REPO, "package.json"), "utf8"))
  await build({
    ...common,
    entryPoints: { cli: entry },
    external: [...RUNTIME_EXTERNALS, ...Object.keys(dependencies).flatMap((name) => [name, `${name}/*`])],
    // What a command loads on demand (Graphviz) sits in a chunk of its own: every other command starts without it.
    splitting: true,
    chunkNames: "cli/[name]-[hash]",
    // esbuild keeps an entry's own hashbang; a second one would be a syntax error.
    ...(source.startsWith("#!") ? {} : { banner: { js: "#!/usr/bin/env node" } }),
    outdir: out,
  })
  await chmod(join(out, "cli.js"), 0o755)
}

/** Declarations for machines/, services/ and testing/, with options from tsconfig.build.json and this build's folders. */
async function buildTypes(entries, root, out) {
  const configPath = join(REPO, "tsconfig.build.json")
  const config = ts.getParsedCommandLineOfConfigFile(configPath, undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new BuildError(ts.flattenDiagnosticMessageText(d.messageText, "\n"))
    },
  })
  if (!config) throw new BuildError(`cannot read ${configPath}`)
  const options = { ...config.options, rootDir: root, outDir: join(out, "types"), noEmit: false }
  const program = ts.createProgram({ rootNames: [entries.machines, entries.services, entries.testing], options })
  const emitted = program.emit(undefined, undefined, undefined, true)
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics]
  if (diagnostics.length) {
    const text = ts.formatDiagnostics(diagnostics, {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => root,
      getNewLine: () => "\n",
    })
    throw new BuildError(`type declarations failed:\n${text}`)
  }
  await addDeclarationExtensions(join(out, "types"))
}

// tsc keeps the source's extensionless relative imports; a consumer resolving with node16/nodenext needs the
// extension, and every resolver accepts it, so "./plan.machine" becomes "./plan.machine.js".
async function addDeclarationExtensions(dir) {
  const files = (await readdir(dir, { recursive: true })).filter((f) => f.endsWith(".d.ts")).map((f) => join(dir, f))
  const specifier = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])(\.{1,2}(?:\/[^"']*)?)\2/g
  for (const file of files) {
    const text = await readFile(file, "utf8")
    const parts = []
    let last = 0
    for (const m of text.matchAll(specifier)) {
      const [whole, lead, quote, spec] = m
      const base = resolve(dirname(file), spec)
      let fixed = spec
      if (await exists(`${base}.d.ts`)) fixed = `${spec}.js`
      else if (await exists(join(base, "index.d.ts"))) fixed = `${spec.replace(/\/$/, "")}/index.js`
      parts.push(text.slice(last, m.index), `${lead}${quote}${fixed}${quote}`)
      last = m.index + whole.length
    }
    parts.push(text.slice(last))
    const next = parts.join("")
    if (next !== text) await writeFile(file, next)
  }
}

async function main(argv) {
  const started = Date.now()
  const { root, out } = parseArgs(argv)
  const entries = await entryPaths(root)
  const stage = join(dirname(out), `.${basename(out)}.build-${process.pid}`)
  await rm(stage, { recursive: true, force: true })
  await mkdir(stage, { recursive: true })
  try {
    // Every step runs to its end before the stage is removed or moved, and every failure is reported.
    const results = await Promise.allSettled([
      buildServer(entries.server, stage),
      buildSubpaths(entries, stage),
      buildCli(entries.cli, stage),
      buildTypes(entries, root, stage),
    ])
    const failures = results.filter((r) => r.status === "rejected").map((r) => r.reason)
    if (failures.length === 1) throw failures[0]
    if (failures.length) throw new BuildError(failures.map(errorText).join("\n"))
    await rm(out, { recursive: true, force: true })
    await rename(stage, out)
  } catch (error) {
    await rm(stage, { recursive: true, force: true })
    throw error
  }
  const files = (await readdir(out, { recursive: true })).filter((f) => f.endsWith(".js")).sort()
  console.log(`built ${relative(process.cwd(), out) || "."}: ${files.join(", ")} + types/ in ${Date.now() - started} ms`)
}

// esbuild's own errors carry their locations in the message; anything else is a defect worth a stack.
function errorText(error) {
  return error instanceof BuildError || error?.errors ? error.message : (error?.stack ?? String(error))
}

main(process.argv.slice(2)).catch((error) => {
  console.error(`build failed: ${errorText(error)}`)
  process.exitCode = 1
})
