import { describe, expect, it } from "vitest"
import { formatWorkerFinding } from "../../../services/workers/worker.findings"
import { WorkerAnchors } from "../../../services/workers/worker.anchors"
import { poolNamespaceFromDirectory, resolveWorkerPools } from "../../../services/workers/worker.pools"
import type { ForgeJsonFiles, ForgeJsonRead } from "../../../services/workers/worker.ports"

// Pool discovery and merge over an in-memory tree: which files become pools, in which role, under which names.

const GLOBAL = "/home/u/.config/opencode/forge.json"

/** A tree of forge.json files (text, or `{ error }` for one that cannot be read) and bare folders. */
class MemoryFiles implements ForgeJsonFiles {
  readonly globalPath = GLOBAL
  readonly reads: string[] = []
  readonly listed: string[] = []
  readonly #files = new Map<string, string | { error: string }>()
  readonly #dirs = new Set<string>()
  /** Symlinked folders: link → target. */
  readonly #links = new Map<string, string>()

  constructor(files: Record<string, string | { error: string }>, dirs: string[] = []) {
    for (const [file, content] of Object.entries(files)) {
      this.#files.set(file, content)
      this.#addDir(file.slice(0, file.lastIndexOf("/")))
    }
    for (const dir of dirs) this.#addDir(dir)
  }

  link(from: string, to: string): this {
    this.#links.set(from, to)
    return this
  }

  async read(file: string): Promise<ForgeJsonRead> {
    this.reads.push(file)
    const content = this.#files.get(await this.realpath(file))
    if (content === undefined) return { kind: "missing" }
    return typeof content === "string" ? { kind: "text", text: content } : { kind: "error", error: content.error }
  }

  async subdirectories(dir: string): Promise<string[]> {
    this.listed.push(dir)
    const real = await this.realpath(dir)
    const prefix = real === "/" ? "/" : `${real}/`
    const names = [...this.#dirs].filter((d) => d.startsWith(prefix) && d !== real && !d.slice(prefix.length).includes("/"))
    // Reverse order: the scan must sort siblings itself.
    return names.map((d) => d.slice(prefix.length)).reverse()
  }

  async realpath(file: string): Promise<string> {
    for (const [from, to] of this.#links) if (file === from || file.startsWith(`${from}/`)) return to + file.slice(from.length)
    return file
  }

  #addDir(dir: string): void {
    for (let d = dir; d !== "/" && d !== ""; d = d.slice(0, d.lastIndexOf("/")) || "/") this.#dirs.add(d)
  }
}

const json = (agents: Record<string, object>, pool?: string) => JSON.stringify({ ...(pool === undefined ? {} : { pool }), agents })
const pinned = (model: string, thoughtLevel = "low") => ({ model, thoughtLevel })
const ids = (roster: { workers: { agentId: string }[] }) => roster.workers.map((w) => w.agentId)

describe("the root pool", () => {
  it("no forge.json anywhere: nothing at all", async () => {
    const files = new MemoryFiles({}, ["/r/a"])
    expect(await resolveWorkerPools({ anchors: ["/r"], files })).toEqual({ pools: [], workers: [], findings: [], uncovered: [] })
  })

  it("the global layer alone is the primary root pool, with plain ids", async () => {
    const files = new MemoryFiles({ [GLOBAL]: json({ research: pinned("p/m"), scout: {} }) }, ["/r"])
    const roster = await resolveWorkerPools({ anchors: ["/r"], files })
    expect(roster.pools).toEqual([expect.objectContaining({ file: GLOBAL, anchor: "/r", origin: "global", primary: true, agents: expect.any(Array) })])
    expect(roster.pools[0]).not.toHaveProperty("ns")
    expect(ids(roster)).toEqual(["forge-research", "forge-scout"])
    expect(roster.workers[0]).toEqual({
      agentId: "forge-research",
      pool: GLOBAL,
      source: GLOBAL,
      entry: { id: "research", kind: "pinned", model: "p/m", thoughtLevel: "low", shape: "readonly" },
    })
  })

  it("merges the project over the global layer per id, wholesale: no field of the global definition survives", async () => {
    const files = new MemoryFiles({
      [GLOBAL]: json({ research: { ...pinned("g/brain"), prompt: "global prompt" }, scout: {} }),
      "/r/.opencode/forge.json": json({ research: { description: "project research" }, coder: pinned("p/coder", "high") }),
    })
    const roster = await resolveWorkerPools({ anchors: ["/r"], files })
    expect(roster.findings).toEqual([])
    expect(roster.pools.map((p) => [p.file, p.origin, p.primary])).toEqual([["/r/.opencode/forge.json", "project", true]])
    expect(roster.workers.map((w) => [w.agentId, w.source])).toEqual([
      ["forge-research", "/r/.opencode/forge.json"],
      ["forge-scout", GLOBAL],
      ["forge-coder", "/r/.opencode/forge.json"],
    ])
    expect(roster.workers[0]?.entry).toEqual({ id: "research", kind: "auto", shape: "readonly", description: "project research" })
  })

  it("the nearest file on the anchor's ancestor chain wins; nothing above it is read", async () => {
    const files = new MemoryFiles({
      "/r/.opencode/forge.json": json({ top: {} }),
      "/r/a/.opencode/forge.json": json({ near: {} }),
    })
    const roster = await resolveWorkerPools({ anchors: ["/r/a/b"], files })
    expect(ids(roster)).toEqual(["forge-near"])
    expect(roster.pools.map((p) => p.file)).toEqual(["/r/a/.opencode/forge.json"])
    expect(files.reads).not.toContain("/r/.opencode/forge.json")
  })

  it("a broken nearest file still wins the chain: its layer is empty, the global layer still applies", async () => {
    const files = new MemoryFiles({
      [GLOBAL]: json({ scout: {} }),
      "/r/.opencode/forge.json": json({ top: {} }),
      "/r/a/.opencode/forge.json": "{ oops",
      "/r/b/.opencode/forge.json": { error: "EACCES: permission denied" },
    })
    const broken = await resolveWorkerPools({ anchors: ["/r/a"], files })
    expect(ids(broken)).toEqual(["forge-scout"])
    expect(broken.findings.map((f) => [f.level, f.source])).toEqual([["error", "/r/a/.opencode/forge.json"]])
    expect(broken.findings[0]?.message).toMatch(/^\/r\/a\/\.opencode\/forge\.json: syntax error at 1:3: /)

    const unreadable = await resolveWorkerPools({ anchors: ["/r/b"], files })
    expect(ids(unreadable)).toEqual(["forge-scout"])
    expect(unreadable.findings.map((f) => f.message)).toEqual([
      "/r/b/.opencode/forge.json: could not be read (EACCES: permission denied); its agents do not apply",
    ])
  })

  it("a broken global layer costs only itself", async () => {
    const files = new MemoryFiles({ [GLOBAL]: "[", "/r/.opencode/forge.json": json({ coder: {} }) })
    const roster = await resolveWorkerPools({ anchors: ["/r"], files })
    expect(ids(roster)).toEqual(["forge-coder"])
    expect(roster.findings.map((f) => f.source)).toEqual([GLOBAL])
  })
})

describe("sub-pools", () => {
  it("are namespaced by their pool field, else by their folder's sanitized name; the primary root keeps plain ids", async () => {
    const files = new MemoryFiles({
      "/r/.opencode/forge.json": json({ lead: {} }, "ignored"),
      "/r/packages/Web App!/.opencode/forge.json": json({ coder: {} }),
      "/r/packages/api/.opencode/forge.json": json({ coder: {} }, "srv"),
    })
    const roster = await resolveWorkerPools({ anchors: ["/r"], files })
    expect(roster.findings).toEqual([])
    expect(roster.pools.map((p) => [p.file, p.origin, p.primary, p.ns])).toEqual([
      ["/r/.opencode/forge.json", "project", true, undefined],
      ["/r/packages/Web App!/.opencode/forge.json", "sub", false, "web-app"],
      ["/r/packages/api/.opencode/forge.json", "sub", false, "srv"],
    ])
    expect(ids(roster)).toEqual(["forge-lead", "forge-web-app-coder", "forge-srv-coder"])
  })

  it("are not merged with the global layer", async () => {
    const files = new MemoryFiles({ [GLOBAL]: json({ scout: {} }), "/r/web/.opencode/forge.json": json({ coder: {} }) })
    expect(ids(await resolveWorkerPools({ anchors: ["/r"], files }))).toEqual(["forge-scout", "forge-web-coder"])
  })

  it("are found breadth first, siblings in code-unit order", async () => {
    const files = new MemoryFiles({
      "/r/a/deep/.opencode/forge.json": json({ x: {} }),
      "/r/z/.opencode/forge.json": json({ x: {} }),
      "/r/B/.opencode/forge.json": json({ x: {} }),
      "/r/a/.opencode/forge.json": json({ x: {} }),
    })
    const roster = await resolveWorkerPools({ anchors: ["/r"], files })
    expect(roster.pools.map((p) => p.ns)).toEqual(["b", "a", "z", "deep"])
  })

  it("skip dependency, build and hidden folders, and never walk into .opencode itself", async () => {
    const files = new MemoryFiles({
      "/r/node_modules/pkg/.opencode/forge.json": json({ x: {} }),
      "/r/dist/.opencode/forge.json": json({ x: {} }),
      "/r/vendor/lib/.opencode/forge.json": json({ x: {} }),
      "/r/.git/x/.opencode/forge.json": json({ x: {} }),
      "/r/.hidden/.opencode/forge.json": json({ x: {} }),
      "/r/.opencode/nested/.opencode/forge.json": json({ x: {} }),
      "/r/app/.opencode/forge.json": json({ x: {} }),
    })
    const roster = await resolveWorkerPools({ anchors: ["/r"], files })
    expect(ids(roster)).toEqual(["forge-app-x"])
    expect(files.listed).toEqual(["/r", "/r/app"])
  })

  it("honour the scan budget: at most that many folders are listed, and the cut is reported", async () => {
    const files = new MemoryFiles({
      "/r/a/.opencode/forge.json": json({ x: {} }),
      "/r/b/.opencode/forge.json": json({ x: {} }),
      "/r/c/.opencode/forge.json": json({ x: {} }),
    })
    const roster = await resolveWorkerPools({ anchors: ["/r"], files, scanBudget: 3 })
    expect(files.listed).toEqual(["/r", "/r/a", "/r/b"])
    expect(ids(roster)).toEqual(["forge-a-x", "forge-b-x"])
    expect(roster.findings).toEqual([
      {
        level: "warning",
        source: "/r",
        message: "/r: the sub-pool scan stopped after 3 folders; a forge.json deeper below this anchor is not discovered",
      },
    ])
  })

  it("a scan that lists every folder within the budget reports nothing", async () => {
    const files = new MemoryFiles({ "/r/a/.opencode/forge.json": json({ x: {} }) })
    const roster = await resolveWorkerPools({ anchors: ["/r"], files, scanBudget: 3 })
    expect(files.listed).toEqual(["/r", "/r/a"])
    expect(roster.findings).toEqual([])
  })
})

describe("several anchors", () => {
  it("a later anchor's root pool is namespaced and adds to the primary's pools; the global layer materializes once, under the primary", async () => {
    const files = new MemoryFiles({
      [GLOBAL]: json({ scout: {} }),
      "/p/.opencode/forge.json": json({ coder: {} }),
      "/q/.opencode/forge.json": json({ coder: {} }, "qq"),
    })
    const roster = await resolveWorkerPools({ anchors: ["/p", "/q"], files })
    expect(roster.pools.map((p) => [p.file, p.anchor, p.origin, p.primary, p.ns])).toEqual([
      ["/p/.opencode/forge.json", "/p", "project", true, undefined],
      ["/q/.opencode/forge.json", "/q", "project", false, "qq"],
    ])
    expect(ids(roster)).toEqual(["forge-scout", "forge-coder", "forge-qq-coder"])
  })

  it("a later anchor without a project file adds nothing: the global layer is already the primary's", async () => {
    const files = new MemoryFiles({ [GLOBAL]: json({ scout: {} }) }, ["/p", "/q"])
    const roster = await resolveWorkerPools({ anchors: ["/p", "/q"], files })
    expect(roster.pools).toHaveLength(1)
    expect(ids(roster)).toEqual(["forge-scout"])
  })

  it("a pool is its file's real path: one file reached through two anchors (or as root and as sub-pool) materializes once", async () => {
    const files = new MemoryFiles({
      "/work/a/.opencode/forge.json": json({ coder: {} }),
      "/work/a/web/.opencode/forge.json": json({ ui: {} }),
    }).link("/link", "/work")
    const roster = await resolveWorkerPools({ anchors: ["/work/a", "/link/a", "/work/a/web"], files })
    expect(roster.pools.map((p) => [p.file, p.anchor, p.origin])).toEqual([
      ["/work/a/.opencode/forge.json", "/work/a", "project"],
      ["/work/a/web/.opencode/forge.json", "/work/a", "sub"],
    ])
    expect(ids(roster)).toEqual(["forge-coder", "forge-web-ui"])
    expect(roster.findings).toEqual([])
  })

  it("a namespace taken twice: the first pool keeps it, the second is dropped with an error naming both files", async () => {
    const files = new MemoryFiles({
      "/r/x/api/.opencode/forge.json": json({ a: {} }),
      "/r/y/api/.opencode/forge.json": json({ b: {} }),
      "/r/y/srv/.opencode/forge.json": json({ c: {} }, "api"),
    })
    const roster = await resolveWorkerPools({ anchors: ["/r"], files })
    expect(ids(roster)).toEqual(["forge-api-a"])
    expect(roster.findings.map((f) => [f.level, f.source])).toEqual([
      ["error", "/r/y/api/.opencode/forge.json"],
      ["error", "/r/y/srv/.opencode/forge.json"],
    ])
    expect(roster.findings[0]?.message).toBe(
      '/r/y/api/.opencode/forge.json: pool namespace "api" is already taken by /r/x/api/.opencode/forge.json; none of this file\'s agents are materialized (give one of the two files a distinct "pool" name)',
    )
  })

  it("an agent name taken twice: the first definition keeps it, the second is dropped with an error naming both files", async () => {
    const files = new MemoryFiles({
      [GLOBAL]: json({ "web-coder": {} }),
      "/r/web/.opencode/forge.json": json({ coder: {}, other: {} }),
    })
    const roster = await resolveWorkerPools({ anchors: ["/r"], files })
    expect(ids(roster)).toEqual(["forge-web-coder", "forge-web-other"])
    expect(roster.workers[0]?.source).toBe(GLOBAL)
    expect(roster.findings).toEqual([
      {
        level: "error",
        source: "/r/web/.opencode/forge.json",
        message: `/r/web/.opencode/forge.json: agent "coder" would materialize as forge-web-coder, which ${GLOBAL} already defines; it is not materialized`,
      },
    ])
  })
})

describe("coverage", () => {
  it("names the nearest forge.json of a probed folder that no anchor's pools include", async () => {
    const files = new MemoryFiles({
      "/p/.opencode/forge.json": json({ a: {} }),
      "/elsewhere/.opencode/forge.json": json({ b: {} }),
    })
    const roster = await resolveWorkerPools({ anchors: ["/p"], files, probes: ["/p/src", "/elsewhere/src", "/elsewhere", "/none"] })
    expect(roster.uncovered).toEqual(["/elsewhere/.opencode/forge.json"])
    expect(ids(roster)).toEqual(["forge-a"])
  })
})

describe("namespace from a folder name", () => {
  it.each([
    ["/r/web", "web"],
    ["/r/My Project", "my-project"],
    ["/r/--a__b--", "a-b"],
    ["/r/a-very-long-directory-name-indeed", "a-very-long-directory-na"],
    ["/r/abcdefghijklmnopqrstuvw-xyz", "abcdefghijklmnopqrstuvw"],
    ["/r/日本", "pool"],
    ["/", "pool"],
  ])("%s → %s", (dir, ns) => {
    expect(poolNamespaceFromDirectory(dir)).toBe(ns)
  })
})

describe("the anchor set", () => {
  it("only grows, keeps its order, and the first anchor stays the primary", () => {
    const anchors = new WorkerAnchors(["/p"])
    expect(anchors.add("/q")).toBe(true)
    expect(anchors.add("/p")).toBe(false)
    expect(anchors.add("/q/")).toBe(false)
    expect(anchors.add("/q/./sub/..")).toBe(false)
    expect(anchors.add("/")).toBe(true)
    expect(anchors.list()).toEqual(["/p", "/q", "/"])
    expect(anchors.primary).toBe("/p")
    expect(new WorkerAnchors().primary).toBeUndefined()
  })

  it("an anchor added later adds its pools and takes none away", async () => {
    const files = new MemoryFiles({ "/p/.opencode/forge.json": json({ a: {} }), "/q/.opencode/forge.json": json({ b: {} }, "q") })
    const anchors = new WorkerAnchors(["/p"])
    const before = ids(await resolveWorkerPools({ anchors: anchors.list(), files }))
    anchors.add("/q")
    const after = ids(await resolveWorkerPools({ anchors: anchors.list(), files }))
    expect(before).toEqual(["forge-a"])
    expect(after).toEqual(["forge-a", "forge-q-b"])
  })
})

describe("a finding as a log line", () => {
  it("says it is about forge.json, its level, and the message naming the file", async () => {
    const roster = await resolveWorkerPools({ anchors: ["/r"], files: new MemoryFiles({ "/r/.opencode/forge.json": "{" }) })
    expect(roster.findings.map(formatWorkerFinding)).toEqual([
      "forge.json error: /r/.opencode/forge.json: syntax error at 1:2: CloseBraceExpected; the file is ignored",
    ])
  })
})
