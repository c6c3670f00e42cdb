import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, it } from "vitest"
import { FsForgeJsonFiles, globalForgeJsonPath } from "../../../adapters/workspace/forge.json.files"
import { resolveWorkerPools } from "../../../services/workers/worker.pools"
import { tempDir } from "../../temp.dir"

// forge.json files and the sub-pool scan on a real disk.

function write(file: string, text: string): string {
  mkdirSync(path.dirname(file), { recursive: true })
  writeFileSync(file, text)
  return file
}

/** A real temp tree (symlinks resolved, so the paths compare with realpath's). */
const tree = () => realpathSync(tempDir("forge-json-"))

describe("FsForgeJsonFiles", () => {
  it("reads a file's text, tells a missing file (or a missing .opencode folder) from one that cannot be read", async () => {
    const root = tree()
    const files = new FsForgeJsonFiles(path.join(root, "global.json"))
    const file = write(path.join(root, ".opencode", "forge.json"), "{ // hi\n}")
    expect(await files.read(file)).toEqual({ kind: "text", text: "{ // hi\n}" })
    expect(await files.read(path.join(root, "nope", ".opencode", "forge.json"))).toEqual({ kind: "missing" })
    // A file named .opencode where the folder would be.
    write(path.join(root, "f", ".opencode"), "")
    expect(await files.read(path.join(root, "f", ".opencode", "forge.json"))).toEqual({ kind: "missing" })
    // A folder named forge.json.
    mkdirSync(path.join(root, "d", ".opencode", "forge.json"), { recursive: true })
    expect(await files.read(path.join(root, "d", ".opencode", "forge.json"))).toEqual({ kind: "error", error: "it is not a regular file" })
  })

  it("a file it cannot read is an error naming why, not a missing file", async () => {
    const root = tree()
    // A symlink to itself fails with ELOOP whoever reads it (a permission bit would not stop root).
    const file = path.join(root, ".opencode", "forge.json")
    mkdirSync(path.dirname(file))
    symlinkSync(file, file)
    expect(await new FsForgeJsonFiles().read(file)).toEqual({ kind: "error", error: expect.stringContaining("ELOOP") })
  })

  it("lists only real folders: no files, no symlinked folders; an unreadable or missing folder lists nothing", async () => {
    const root = tree()
    mkdirSync(path.join(root, "a"))
    mkdirSync(path.join(root, ".opencode"))
    write(path.join(root, "file.txt"), "")
    symlinkSync(path.join(root, "a"), path.join(root, "link"))
    const files = new FsForgeJsonFiles()
    expect((await files.subdirectories(root)).sort()).toEqual([".opencode", "a"])
    expect(await files.subdirectories(path.join(root, "missing"))).toEqual([])
  })

  it("resolves symlinks for a pool's identity, and keeps a path it cannot resolve", async () => {
    const root = tree()
    const file = write(path.join(root, "real", ".opencode", "forge.json"), "{}")
    symlinkSync(path.join(root, "real"), path.join(root, "alias"))
    const files = new FsForgeJsonFiles()
    expect(await files.realpath(path.join(root, "alias", ".opencode", "forge.json"))).toBe(file)
    expect(await files.realpath(path.join(root, "gone"))).toBe(path.join(root, "gone"))
  })

  it("the global layer lives in XDG_CONFIG_HOME when set, else ~/.config", () => {
    expect(globalForgeJsonPath({ XDG_CONFIG_HOME: "/xdg" }, "/home/u")).toBe(path.join("/xdg", "opencode", "forge.json"))
    expect(globalForgeJsonPath({ XDG_CONFIG_HOME: "" }, "/home/u")).toBe(path.join("/home/u", ".config", "opencode", "forge.json"))
    expect(globalForgeJsonPath({}, "/home/u")).toBe(path.join("/home/u", ".config", "opencode", "forge.json"))
  })
})

describe("worker pools on disk", () => {
  it("root pool over the global layer, sub-pools by scan, symlinked folders not followed, one file once", async () => {
    const root = tree()
    const global = write(path.join(root, "config", "opencode", "forge.json"), '{ "agents": { "scout": {} } }')
    const project = path.join(root, "project")
    write(path.join(project, ".opencode", "forge.json"), '{ "agents": { "coder": { "model": "p/m", "thoughtLevel": "high" } } }')
    write(path.join(project, "packages", "web", ".opencode", "forge.json"), '{ "agents": { "ui": {} } }')
    write(path.join(project, "node_modules", "dep", ".opencode", "forge.json"), '{ "agents": { "dep": {} } }')
    write(path.join(root, "outside", ".opencode", "forge.json"), '{ "agents": { "far": {} } }')
    // A symlink inside the project to a pool outside it: the scan does not follow it.
    symlinkSync(path.join(root, "outside"), path.join(project, "linked"))
    // The project reached a second time through a symlinked anchor.
    symlinkSync(project, path.join(root, "alias"))

    const roster = await resolveWorkerPools({ anchors: [path.join(project, "src"), path.join(root, "alias")], files: new FsForgeJsonFiles(global) })
    expect(roster.findings).toEqual([])
    expect(roster.pools.map((p) => [p.file, p.origin, p.primary])).toEqual([
      [path.join(project, ".opencode", "forge.json"), "project", true],
      [path.join(project, "packages", "web", ".opencode", "forge.json"), "sub", false],
    ])
    expect(roster.workers.map((w) => w.agentId)).toEqual(["forge-scout", "forge-coder", "forge-web-ui"])
  })
})
