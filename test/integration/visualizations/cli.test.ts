import { spawnSync } from "node:child_process"
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { machineCatalog } from "../../../machines/index"

// `npm run viz` as a process, writing into a temporary folder instead of docs/machines.

const REPO = resolve(fileURLToPath(new URL("../../../", import.meta.url)))
const TSX = join(REPO, "node_modules", ".bin", "tsx")

function viz(args: readonly string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(TSX, [join(REPO, "visualizations", "cli.ts"), ...args], { cwd: REPO, encoding: "utf8", timeout: 60_000 })
  if (result.error) throw result.error
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

describe("npm run viz", () => {
  const dirs: string[] = []
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true })
  })
  const expected = machineCatalog.flatMap((m) => [`${m.id}.mmd`, `${m.id}.svg`]).sort()

  it("--check exits 1 naming each missing file, then passes once the diagrams are written", async () => {
    const out = await mkdtemp(join(tmpdir(), "forge-viz-"))
    dirs.push(out)
    const before = viz(["--check", "--out", out])
    expect(before.status).toBe(1)
    for (const name of expected) expect(before.stderr).toContain(`stale: ${join(out, name)}`)
    expect(before.stderr).toContain("run npm run viz")
    expect(await readdir(out)).toEqual([])

    const write = viz(["--out", out])
    expect(write.status, write.stderr).toBe(0)
    expect((await readdir(out)).sort()).toEqual(expected)
    expect(viz(["--check", "--out", out]).status).toBe(0)
  })

  it("writes byte-identical files on a second run, and --check flags a file edited by hand", async () => {
    const out = await mkdtemp(join(tmpdir(), "forge-viz-"))
    dirs.push(out)
    expect(viz(["--out", out]).status).toBe(0)
    const first = await Promise.all(expected.map((n) => readFile(join(out, n), "utf8")))
    const again = viz(["--out", out])
    expect(again.stdout).toContain(`${expected.length} diagram files, 0 changed, 0 removed`)
    expect(await Promise.all(expected.map((n) => readFile(join(out, n), "utf8")))).toEqual(first)

    const edited = expected[0] ?? ""
    await writeFile(join(out, edited), "stateDiagram-v2\n")
    const check = viz(["--check", "--out", out])
    expect(check.status).toBe(1)
    expect(check.stderr).toContain(`stale: ${join(out, edited)}`)
  })

  it("--check names a diagram that belongs to no machine, and a run removes it", async () => {
    const out = await mkdtemp(join(tmpdir(), "forge-viz-"))
    dirs.push(out)
    expect(viz(["--out", out]).status).toBe(0)
    await writeFile(join(out, "retired.svg"), "<svg/>\n")
    const check = viz(["--check", "--out", out])
    expect(check.status).toBe(1)
    expect(check.stderr).toContain(`no machine: ${join(out, "retired.svg")}`)
    expect(viz(["--out", out]).stdout).toContain(`removed ${join(out, "retired.svg")}`)
    expect((await readdir(out)).sort()).toEqual(expected)
  })

  it("refuses an unknown argument", () => {
    const result = viz(["--bogus"])
    expect(result.status).toBe(2)
    expect(result.stderr).toContain('unknown argument "--bogus"')
  })
})
