import { cp, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { FIXTURE_ROOT, REPO, importWithBun, importWithNode, relativeImports, run, runBuild } from "./build.run"

// scripts/build.mjs on a small stand-in project (fixtures/project), so the build's own promises are checked
// whatever state the real entries are in. Outputs go under node_modules/.cache, where bare imports of the
// externalized packages still resolve to this repository's node_modules.

const CACHE = join(REPO, "node_modules", ".cache")

async function freshDir(prefix: string): Promise<string> {
  await mkdir(CACHE, { recursive: true })
  return mkdtemp(join(CACHE, prefix))
}

describe("scripts/build.mjs", () => {
  const cleanup: string[] = []
  let out = ""

  beforeAll(async () => {
    out = await freshDir("forge-build-")
    cleanup.push(out)
    const result = runBuild(["--root", FIXTURE_ROOT, "--out", out])
    if (result.status !== 0) throw new Error(`the fixture build failed (exit ${result.status}):\n${result.stderr}`)
  }, 120_000)

  afterAll(async () => {
    for (const dir of cleanup) await rm(dir, { recursive: true, force: true })
  })

  it("names every missing entry and writes nothing", async () => {
    const empty = await mkdtemp(join(tmpdir(), "forge-empty-"))
    cleanup.push(empty)
    const target = join(empty, "dist")
    const result = runBuild(["--root", empty, "--out", target])
    expect(result.status).toBe(1)
    for (const entry of ["src/server.ts", "src/cli.ts", "machines/index.ts", "services/index.ts", "testing/index.ts"]) {
      expect(result.stderr).toContain(`missing entry ${entry}`)
    }
    await expect(stat(target)).rejects.toThrow(/ENOENT/)
  })

  it("takes the root and output folders from FORGE_BUILD_ROOT and FORGE_BUILD_OUT too", async () => {
    const empty = await mkdtemp(join(tmpdir(), "forge-env-"))
    cleanup.push(empty)
    const result = run(process.execPath, [join(REPO, "scripts", "build.mjs")], { FORGE_BUILD_ROOT: empty, FORGE_BUILD_OUT: join(empty, "d") })
    expect(result.status).toBe(1)
    expect(result.stderr).toContain(`missing entry src/server.ts (the opencode plugin entry) in ${empty}`)
  })

  it("refuses unknown arguments", () => {
    const result = runBuild(["--watch"])
    expect(result.status).toBe(1)
    expect(result.stderr).toContain('unknown argument "--watch"')
  })

  for (const name of ["server.js", "forgecharts.js"]) {
    it(`${name} loads in Node with exactly the default export`, () => {
      expect(importWithNode(join(out, name))).toEqual({ exports: ["default"], id: "forgecharts", serverType: "function" })
    })
  }

  it("the server bundle runs in opencode's Bun and picks bun:sqlite there, sqlite3 under Node", () => {
    const probe = (url: string) => `
      const mod = await import(${JSON.stringify(url)})
      const hooks = await mod.default.server({}, {})
      const config = {}
      await hooks.config(config)
      console.log("PROBE " + JSON.stringify(config.instructions))
    `
    const url = pathToFileURL(join(out, "forgecharts.js")).href
    const bun = run(join(REPO, "node_modules", "opencode-linux-x64", "bin", "opencode"), ["-e", probe(url)], { BUN_BE_BUN: "1" })
    expect(bun.stdout, bun.stderr).toContain('PROBE ["lamp on via bun:sqlite"]')
    const node = run(process.execPath, ["--input-type=module", "-e", probe(url)])
    expect(node.stdout, node.stderr).toContain('PROBE ["lamp on via sqlite3"]')
    const serverUrl = pathToFileURL(join(out, "server.js")).href
    expect(run(join(REPO, "node_modules", "opencode-linux-x64", "bin", "opencode"), ["-e", probe(serverUrl)], { BUN_BE_BUN: "1" }).stdout).toContain(
      'PROBE ["lamp on via bun:sqlite"]',
    )
    expect(importWithBun(join(out, "server.js")).exports).toEqual(["default"])
  })

  it("bundles every dependency into the server except bun:sqlite, sqlite3 and node builtins", async () => {
    const bareImports = (code: string) => new Set([...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)"([^".][^"]*)"/g)].map((m) => m[1]))
    const single = await readFile(join(out, "forgecharts.js"), "utf8")
    expect(relativeImports(single)).toEqual([])
    expect(bareImports(single)).toEqual(new Set(["node:module", "bun:sqlite", "sqlite3"]))
    // server.js keeps at start only what the load needs: the lazily imported text and xstate are a plugin/ chunk.
    const server = await readFile(join(out, "server.js"), "utf8")
    const chunks = relativeImports(server)
    expect(chunks.length).toBeGreaterThan(0)
    for (const chunk of chunks) expect(chunk).toMatch(/^\.\/plugin\/[\w.-]+\.js$/)
    expect(server).not.toContain("function createActor")
    const split = [server, ...(await Promise.all(chunks.map((c) => readFile(join(out, c), "utf8"))))].join("\n")
    expect(split).toContain("function createActor")
    expect(bareImports(split)).toEqual(new Set(["node:module", "bun:sqlite", "sqlite3"]))
  })

  it("keeps package dependencies as imports in the subpaths, which share one copy of each machine", async () => {
    const chunks = (await readdir(join(out, "chunks"))).map((f) => join(out, "chunks", f))
    const code = (await Promise.all([join(out, "machines.js"), ...chunks].map((f) => readFile(f, "utf8")))).join("\n")
    expect(code).toMatch(/from "xstate"/)
    expect(code).not.toContain("function createActor")
    const probe = `
      const m = await import(${JSON.stringify(pathToFileURL(join(out, "machines.js")).href)})
      const s = await import(${JSON.stringify(pathToFileURL(join(out, "services.js")).href)})
      console.log(JSON.stringify({ ids: m.machineCatalog.map((x) => x.id), shared: m.lampMachine === s.lampMachine, state: s.toggledState(1) }))
    `
    const result = run(process.execPath, ["--input-type=module", "-e", probe])
    expect(JSON.parse(result.stdout || "null"), result.stderr).toEqual({ ids: ["lamp"], shared: true, state: "on" })
  })

  it("cli.js is an executable node script", async () => {
    expect((await stat(join(out, "cli.js"))).mode & 0o111).toBe(0o111)
    const result = run(join(out, "cli.js"), [])
    expect(result.status, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({ machines: ["lamp"], state: "on" })
  })

  it("emits declarations whose relative imports carry .js extensions", async () => {
    const services = await readFile(join(out, "types", "services", "index.d.ts"), "utf8")
    expect(services).toContain('from "../machines/index.js"')
    expect(services).toContain("export declare function toggledState(times: number): string;")
    expect(await readFile(join(out, "types", "machines", "index.d.ts"), "utf8")).toContain("machineCatalog")
  })

  it("refuses a server entry with a second export and leaves the previous output as it was", async () => {
    const root = await freshDir("forge-extra-export-")
    cleanup.push(root)
    await cp(FIXTURE_ROOT, root, { recursive: true })
    const server = join(root, "src", "server.ts")
    await writeFile(server, `${await readFile(server, "utf8")}\nexport const VERSION = "1"\n`)
    const before = await readFile(join(out, "server.js"), "utf8")
    const result = runBuild(["--root", root, "--out", out])
    expect(result.status).toBe(1)
    expect(result.stderr).toContain("src/server.ts must have exactly one export, the default { id, server }; it exports: VERSION, default")
    expect(await readFile(join(out, "server.js"), "utf8")).toBe(before)
    // A whole build, as beforeAll's: on a loaded machine it outlasts the default 30 s.
  }, 120_000)
})
