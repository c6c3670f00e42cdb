import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { cp, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"
import ts from "typescript"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { REPO, importWithBun, importWithNode, loadFailures, relativeImports, run, runBuild } from "./build.run"

// The real build of this repository's entries, exactly as `npm run build` makes it, written to a temporary
// folder so that a test run never swaps dist/ under anything else reading it.

const CACHE = join(REPO, "node_modules", ".cache")
let DIST = ""

describe("npm run build", () => {
  const cleanup: string[] = []

  beforeAll(async () => {
    await mkdir(CACHE, { recursive: true })
    // Under node_modules/.cache, bare imports of the externalized packages resolve as they do from dist/.
    DIST = await mkdtemp(join(CACHE, "forge-dist-"))
    cleanup.push(DIST)
    const result = runBuild(["--root", REPO, "--out", DIST])
    if (result.status !== 0) throw new Error(`npm run build failed (exit ${result.status}):\n${result.stderr}`)
  }, 120_000)

  afterAll(async () => {
    for (const dir of cleanup) await rm(dir, { recursive: true, force: true })
  })

  for (const name of ["server.js", "forgecharts.js"]) {
    it(`dist/${name} loads in Node with one export, default { id: "forgecharts", server }`, () => {
      expect(importWithNode(join(DIST, name))).toEqual({ exports: ["default"], id: "forgecharts", serverType: "function" })
    })
  }

  it("dist/server.js loads in the Bun that runs inside opencode", () => {
    expect(importWithBun(join(DIST, "server.js"))).toEqual({ exports: ["default"], id: "forgecharts", serverType: "function" })
  })

  it("dist/server.js loads at start only tool definitions and hook shells: machines, documents and SQLite come later", async () => {
    // The static import closure of the entry: what opencode parses and runs when it loads the plugin.
    const seen = new Set<string>()
    const visit = async (file: string): Promise<string> => {
      if (seen.has(file)) return ""
      seen.add(file)
      const code = await readFile(file, "utf8")
      const staticImports = [...code.matchAll(/\bfrom\s*"(\.{1,2}\/[^"]+)"/g)].map((m) => join(dirname(file), m[1] as string))
      return [code, ...(await Promise.all(staticImports.map(visit)))].join("\n")
    }
    const atLoad = await visit(join(DIST, "server.js"))
    expect(atLoad).toContain("forge_shell")
    for (const heavy of ["function createActor", "YAMLParseError", "sqliteTable", "LifecycleHost"]) expect(atLoad, heavy).not.toContain(heavy)
    // They are in the lazily imported part.
    const lazily = await Promise.all((await readdir(join(DIST, "plugin"))).map((f) => readFile(join(DIST, "plugin", f), "utf8")))
    for (const heavy of ["function createActor", "YAMLParseError", "sqliteTable", "LifecycleHost"]) expect(lazily.join("\n"), heavy).toContain(heavy)
  })

  it("every part the plugin imports lazily (the composition, each module's lazy part) loads in Node and in opencode's Bun", async () => {
    // A bundled dependency that still calls require() on a file of its own (a UMD build) loads only where that file is.
    const lazy = (await readdir(join(DIST, "plugin"))).filter((f) => /^(composition|[a-z]+\.lazy)-\w+\.js$/.test(f))
    expect(lazy.map((f) => f.split("-")[0]).sort()).toEqual(expect.arrayContaining(["composition", "plan.lazy", "workers.lazy"]))
    expect(loadFailures(lazy.map((f) => join(DIST, "plugin", f)))).toEqual({ node: [], bun: [] })
  })

  it("dist/forgecharts.js is one self-contained file: no relative import", async () => {
    const code = await readFile(join(DIST, "forgecharts.js"), "utf8")
    expect(relativeImports(code)).toEqual([])
  })

  it("dist/machines.js exports machineCatalog", () => {
    const probe = `
      const mod = await import(${JSON.stringify(pathToFileURL(join(DIST, "machines.js")).href)})
      console.log(JSON.stringify({ isArray: Array.isArray(mod.machineCatalog), ids: (mod.machineCatalog ?? []).map((m) => m.id) }))
    `
    const result = run(process.execPath, ["--input-type=module", "-e", probe])
    expect(result.stderr).toBe("")
    const shape = JSON.parse(result.stdout) as { isArray: boolean; ids: string[] }
    expect(shape.isArray).toBe(true)
    expect(shape.ids.length).toBeGreaterThan(0)
  })

  it("dist/services.js exports every lifecycle's service and implementations factory", () => {
    const lifecycles = ["Plan", "Goal", "Crew", "Loop", "Watchdog", "Job"]
    const probe = `
      const mod = await import(${JSON.stringify(pathToFileURL(join(DIST, "services.js")).href)})
      const names = ${JSON.stringify(lifecycles)}.flatMap((n) => [n === "Job" ? "JobSupervisor" : n + "Service", "create" + n + "Implementations", "define" + n + "Lifecycle"])
      console.log(JSON.stringify(Object.fromEntries(names.map((n) => [n, typeof mod[n]]))))
    `
    const result = run(process.execPath, ["--input-type=module", "-e", probe])
    expect(result.stderr).toBe("")
    const kinds = JSON.parse(result.stdout) as Record<string, string>
    expect(Object.entries(kinds).filter(([, kind]) => kind !== "function")).toEqual([])
    expect(Object.keys(kinds)).toHaveLength(lifecycles.length * 3)
  })

  it("dist/testing.js exports the model-test template, and leaves vitest and xstate to the consumer", async () => {
    const code = await readFile(join(DIST, "testing.js"), "utf8")
    expect(code).toMatch(/from "vitest"/)
    expect(code).toMatch(/from "xstate\/graph"/)
    const probe = `
      const mod = await import(${JSON.stringify(pathToFileURL(join(DIST, "testing.js")).href)})
      console.log(JSON.stringify({ describeModel: typeof mod.describeModel, TransitionCoverage: typeof mod.TransitionCoverage }))
    `
    const result = run(process.execPath, ["--input-type=module", "-e", probe])
    expect(JSON.parse(result.stdout), result.stderr).toEqual({ describeModel: "function", TransitionCoverage: "function" })
  })

  it("dist/cli.js starts with a node hashbang", async () => {
    const code = await readFile(join(DIST, "cli.js"), "utf8")
    expect(code.startsWith("#!/usr/bin/env node\n")).toBe(true)
  })

  it("the package exports point at built files, with types for ./machines and ./services", async () => {
    const pkg = JSON.parse(await readFile(join(REPO, "package.json"), "utf8")) as {
      exports: Record<string, string | Record<string, string>>
    }
    const targets = Object.values(pkg.exports).flatMap((t) => (typeof t === "string" ? [t] : Object.values(t)))
    for (const target of targets.filter((t) => t.startsWith("./dist/"))) {
      await expect(readFile(join(DIST, target.slice("./dist/".length)), "utf8"), target).resolves.toBeTypeOf("string")
    }
    expect(pkg.exports["./server"]).toBe("./dist/server.js")
    expect(pkg.exports["./machines"]).toMatchObject({ types: "./dist/types/machines/index.d.ts", default: "./dist/machines.js" })
    expect(pkg.exports["./services"]).toMatchObject({ types: "./dist/types/services/index.d.ts", default: "./dist/services.js" })
    expect(pkg.exports["./testing"]).toMatchObject({ types: "./dist/types/testing/index.d.ts", default: "./dist/testing.js" })
  })

  // skipLibCheck hides a declaration's unresolved import (it turns into `any`), so each one is checked here:
  // NodeNext resolution, which consumers may use, needs the .js extension on every relative specifier.
  it("every relative import in the declarations names an emitted file with its .js extension", async () => {
    const types = join(DIST, "types")
    const files = (await readdir(types, { recursive: true })).filter((f) => f.endsWith(".d.ts"))
    expect(files).toEqual(expect.arrayContaining(["machines/index.d.ts", "services/index.d.ts", "testing/index.d.ts"]))
    const unresolved: string[] = []
    for (const f of files) {
      for (const spec of relativeImports(await readFile(join(types, f), "utf8"))) {
        const declaration = join(types, dirname(f), spec.replace(/\.js$/, ".d.ts"))
        if (!spec.endsWith(".js") || !existsSync(declaration)) unresolved.push(`${f}: ${spec}`)
      }
    }
    expect(unresolved).toEqual([])
  })

  // examples/: harnesses that are not opencode, run from the package as installed, and type-checked against it.
  let examples: Promise<string> | undefined
  /** A folder with examples/ and the package installed beside it (its package.json, dist/ as built), made once. */
  const installedExamples = (): Promise<string> => {
    examples ??= (async () => {
      const dir = await mkdtemp(join(tmpdir(), "forge-examples-"))
      cleanup.push(dir)
      const installed = join(dir, "node_modules", "forgecharts")
      await mkdir(join(dir, "node_modules", "@types"), { recursive: true })
      await mkdir(installed, { recursive: true })
      await writeFile(join(installed, "package.json"), await readFile(join(REPO, "package.json"), "utf8"))
      await symlink(DIST, join(installed, "dist"), "dir")
      // The peers a consumer brings: xstate, and vitest for forgecharts/testing.
      for (const peer of ["xstate", "vitest", join("@types", "node")]) await symlink(join(REPO, "node_modules", peer), join(dir, "node_modules", peer), "dir")
      await writeFile(join(dir, "package.json"), '{ "type": "module" }\n')
      await cp(join(REPO, "examples"), join(dir, "examples"), { recursive: true })
      return dir
    })()
    return examples
  }

  // Type-checking the examples (vitest's declarations included) and two tsx starts take a while on a busy machine.
  it("each example in examples/ type-checks against the built package and runs from it", async () => {
    const dir = await installedExamples()
    const config = ts.getParsedCommandLineOfConfigFile(join(dir, "examples", "tsconfig.json"), undefined, {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: () => {},
    })
    expect(config?.fileNames.length, "the examples' files").toBeGreaterThan(0)
    const program = ts.createProgram({ rootNames: config?.fileNames ?? [], options: config?.options ?? {} })
    const messages = ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName ?? ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`)
    expect(messages).toEqual([])

    const tsx = join(REPO, "node_modules", "tsx", "dist", "cli.mjs")
    const goal = run(process.execPath, [tsx, join(dir, "examples", "goal-harness", "main.ts")])
    expect(goal.stderr).toBe("")
    expect(goal.stdout).toMatch(/^Goal armed: \.opencode\/goal\/.*-write-the-release-note\.md/)
    expect(goal.stdout).toContain("refused: completion gate: goal .opencode/goal/")
    expect(goal.stdout).toContain("check 1 did not pass in the host's run")
    expect(goal.stdout).toMatch(/dialog \[goal_complete\] .* `test -f NOTES\.md`: exit code 0, [\d.]+ s, PASS/)
    expect(goal.stdout).toContain("transition: active.completing --dialog.allow--> completed")

    const plan = run(process.execPath, [tsx, join(dir, "examples", "plan-gate", "main.ts")])
    expect(plan.stderr).toBe("")
    expect(plan.stdout.trim().split("\n")).toEqual([
      "read: # demo",
      'write refused: the plan is {"draft":"editing"}, and a draft plan bans every write and exec tool until the user approves it',
      "approved: true",
      "wrote NOTES.md",
      "NOTES.md: written",
    ])
  }, 120_000)

  // examples/adapter-test: the goal harness's in-memory adapters proven with forgecharts/testing, run by vitest with the
  // example's own configuration, as a consumer runs it, from the package as installed.
  const runExampleTest = async (folder: string) => {
    const dir = await installedExamples()
    // The outer vitest's worker variables would make the inner one think it is a worker.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST")))
    const vitest = join(REPO, "node_modules", "vitest", "vitest.mjs")
    const result = spawnSync(process.execPath, [vitest, "run", "--root", join(dir, "examples", folder), "--bail", "1"], {
      cwd: dir,
      encoding: "utf8",
      timeout: 180_000,
      env: { ...env, NO_COLOR: "1" },
    })
    if (result.error) throw result.error
    return { status: result.status, output: `${result.stdout}${result.stderr}` }
  }

  it("the adapter-test example runs the plan machine's model paths on the goal harness's adapters, at 100 % coverage", async () => {
    const { status, output } = await runExampleTest("adapter-test")
    expect(output).toContain("transition coverage of plan: 43/43 (100.0 %)")
    expect(output).toMatch(/Tests\s+\d{3,} passed/)
    expect(status, output.slice(-3000)).toBe(0)
  }, 240_000)

  it("the adapter-test example fails on an adapter that loses what it is given", async () => {
    const dir = await installedExamples()
    // A copy of the example whose repository forgets the transitions it commits.
    const broken = join(dir, "examples", "adapter-test-broken")
    await cp(join(dir, "examples", "adapter-test"), broken, { recursive: true })
    await cp(join(dir, "examples", "goal-harness"), join(dir, "examples", "goal-harness-broken"), { recursive: true })
    const repository = join(dir, "examples", "goal-harness-broken", "memory.repository.ts")
    const code = await readFile(repository, "utf8")
    const forgetful = code.replace("this.transitions.push(write.transition)", "")
    expect(forgetful).not.toBe(code)
    await writeFile(repository, forgetful)
    const sut = join(broken, "plan.sut.ts")
    await writeFile(sut, (await readFile(sut, "utf8")).replaceAll("../goal-harness/", "../goal-harness-broken/"))
    const { status, output } = await runExampleTest("adapter-test-broken")
    expect(status, output.slice(-3000)).toBe(1)
    expect(output).toContain("the repository's last transition")
  }, 240_000)

  // A consumer importing the subpaths by package name, as another harness would, under both resolvers.
  for (const resolution of ["NodeNext", "Bundler"] as const) {
    it(`a TypeScript consumer resolving with ${resolution} gets typed ./machines and ./services`, async () => {
      // An installed copy of this package (its package.json, and dist/ as built) beside a consumer module.
      const dir = await mkdtemp(join(tmpdir(), "forge-consumer-"))
      cleanup.push(dir)
      const installed = join(dir, "node_modules", "forgecharts")
      await mkdir(installed, { recursive: true })
      await writeFile(join(installed, "package.json"), await readFile(join(REPO, "package.json"), "utf8"))
      await symlink(DIST, join(installed, "dist"), "dir")
      await symlink(join(REPO, "node_modules", "xstate"), join(dir, "node_modules", "xstate"), "dir")
      await writeFile(join(dir, "package.json"), '{ "type": "module" }\n')
      const file = join(dir, "consumer.ts")
      await writeFile(
        file,
        [
          'import type { AnyStateMachine } from "xstate"',
          'import { machineCatalog } from "forgecharts/machines"',
          'import * as services from "forgecharts/services"',
          'import { GoalService, CrewService, LoopService, createLoopImplementations, type GoalServiceDeps, type LoopSessions } from "forgecharts/services"',
          'import { describeModel, type ModelSut } from "forgecharts/testing"',
          "type IsAny<T> = 0 extends 1 & T ? true : false",
          "const typed: IsAny<typeof machineCatalog> = false",
          "const catalog: readonly AnyStateMachine[] = machineCatalog",
          "const lifecycles: [IsAny<typeof GoalService>, IsAny<typeof CrewService>, IsAny<typeof LoopService>, IsAny<typeof createLoopImplementations>] = [false, false, false, false]",
          "const ports: [IsAny<GoalServiceDeps>, IsAny<LoopSessions>] = [false, false]",
          "const template: [IsAny<typeof describeModel>, IsAny<ModelSut<AnyStateMachine>>] = [false, false]",
          "export const used = [typed, catalog, Object.keys(services), lifecycles, ports, template]",
          "",
        ].join("\n"),
      )
      const options: ts.CompilerOptions = {
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: [],
        target: ts.ScriptTarget.ES2022,
        module: resolution === "NodeNext" ? ts.ModuleKind.NodeNext : ts.ModuleKind.ESNext,
        moduleResolution: resolution === "NodeNext" ? ts.ModuleResolutionKind.NodeNext : ts.ModuleResolutionKind.Bundler,
      }
      const program = ts.createProgram({ rootNames: [file], options })
      const messages = ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName ?? ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`)
      expect(messages).toEqual([])
    })
  }
})
