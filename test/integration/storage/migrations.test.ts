// The embedded migrations match drizzle/, and drizzle/ matches the schema (no change drizzle-kit has not generated).
import { spawnSync } from "node:child_process"
import { cp, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import path from "node:path"
import { readMigrationFiles } from "drizzle-orm/migrator"
import { afterEach, describe, expect, it } from "vitest"
import { migrations } from "../../../adapters/storage/migrations.generated"
import { DRIZZLE_DIR, embedMigrations, GENERATED_FILE, readDrizzleMigrations, renderMigrationsModule } from "../../../scripts/embed-migrations"

const root = path.resolve(DRIZZLE_DIR, "..")
const drizzleKit = path.join(root, "node_modules/drizzle-kit/bin.cjs")
const temps: string[] = []

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "forge-migrations-"))
  temps.push(dir)
  return dir
}

afterEach(async () => {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
})

/** Every file under `dir` with its content, so any write drizzle-kit makes shows up. */
async function listing(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {}
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const full = path.join(entry.parentPath, entry.name)
    files[path.relative(dir, full)] = await readFile(full, "utf8")
  }
  return files
}

/** Runs `drizzle-kit generate` for `schema` into a copy of drizzle/; returns its output and the copy's files after. */
async function generateIntoCopy(schema: string): Promise<{ output: string; before: Record<string, string>; after: Record<string, string> }> {
  const dir = await tempDir()
  await cp(DRIZZLE_DIR, path.join(dir, "out"), { recursive: true })
  // drizzle-kit prefixes `out` with "./", so the copy must be relative to the working directory.
  await writeFile(path.join(dir, "drizzle.config.ts"), `export default ${JSON.stringify({ dialect: "sqlite", schema, out: "./out" })}\n`)
  const before = await listing(path.join(dir, "out"))
  const result = spawnSync(process.execPath, [drizzleKit, "generate", "--config", "drizzle.config.ts"], {
    cwd: dir,
    encoding: "utf8",
    timeout: 20_000,
  })
  // drizzle-kit exits 0 even on some failures: the output is checked by the callers too.
  const output = `${result.stdout}\n${result.stderr}`
  expect(result.status, output).toBe(0)
  return { output, before, after: await listing(path.join(dir, "out")) }
}

describe("embedded migrations", () => {
  it("migrations.generated.ts is up to date with drizzle/ (run `npm run db:generate` if not)", async () => {
    expect(await readFile(GENERATED_FILE, "utf8")).toBe(await renderMigrationsModule(DRIZZLE_DIR))
  })

  it("carries the same hashes, times and statements as drizzle's own migration reader", () => {
    const drizzles = readMigrationFiles({ migrationsFolder: DRIZZLE_DIR })
    expect(migrations.map((m) => ({ hash: m.hash, folderMillis: m.folderMillis, sql: m.sql }))).toEqual(
      drizzles.map((m) => ({ hash: m.hash, folderMillis: m.folderMillis, sql: m.sql.map((s) => s.trim()).filter((s) => s !== "") })),
    )
    expect(migrations.length).toBeGreaterThan(0)
  })

  it("embedMigrations writes the rendered module to the requested file", async () => {
    const dir = await tempDir()
    const out = path.join(dir, "migrations.generated.ts")
    await embedMigrations(DRIZZLE_DIR, out)
    expect(await readFile(out, "utf8")).toBe(await renderMigrationsModule(DRIZZLE_DIR))
    expect(await readdir(dir)).toEqual(["migrations.generated.ts"])
  })

  it("names the journal or the missing .sql file when drizzle/ is broken", async () => {
    const dir = await tempDir()
    await cp(DRIZZLE_DIR, dir, { recursive: true })
    const journal = path.join(dir, "meta/_journal.json")
    const parsed = JSON.parse(await readFile(journal, "utf8")) as { entries: { tag: string }[] }
    await rm(path.join(dir, `${parsed.entries[0]?.tag}.sql`))
    await expect(readDrizzleMigrations(dir)).rejects.toThrow(new RegExp(`journal entry ${parsed.entries[0]?.tag} has no readable`))
    await writeFile(journal, JSON.stringify({ dialect: "postgresql", entries: [] }))
    await expect(readDrizzleMigrations(dir)).rejects.toThrow(/invalid .*_journal\.json[\s\S]*dialect/)
  })
})

describe("drizzle/ against the schema", () => {
  it("has no schema change that drizzle-kit has not generated yet (run `npm run db:generate` if it fails)", async () => {
    const { output, before, after } = await generateIntoCopy(path.join(root, "adapters/storage/tables"))
    expect(output).toContain("No schema changes")
    expect(after).toEqual(before)
  })

  it("the same check notices a table added to the schema", async () => {
    const dir = await tempDir()
    // drizzle-kit loads every file of the schema folder, so node_modules sits one level up for the imports to resolve.
    await symlink(path.join(root, "node_modules"), path.join(dir, "node_modules"), "dir")
    const schemaDir = path.join(dir, "tables")
    // The whole current schema (every table group), plus one new table.
    await cp(path.join(root, "adapters/storage/tables"), schemaDir, { recursive: true })
    await writeFile(
      path.join(schemaDir, "extra.tables.ts"),
      'import { integer, sqliteTable } from "drizzle-orm/sqlite-core"\nexport const extra = sqliteTable("extra", { id: integer("id").primaryKey() })\n',
    )
    const { output, before, after } = await generateIntoCopy(schemaDir)
    expect(output).not.toContain("No schema changes")
    const added = Object.keys(after).filter((file) => !(file in before))
    expect(added.some((file) => file.endsWith(".sql"))).toBe(true)
    expect(Object.entries(after).find(([file]) => file.endsWith(".sql") && !(file in before))?.[1]).toContain("CREATE TABLE `extra`")
  })
})
