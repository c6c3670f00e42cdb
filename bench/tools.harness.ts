// What the file-tools bench shares: the forge file tools as the plugin composes them (ForgeFiles over the real
// FileJournal, SqliteJournalStore on a real workspace database, fsToolFiles), pointed at a temp folder; a spawner for
// the command-line baselines; a contender loop whose order rotates every round; and the small number formats.
import { execFileSync, spawn } from "node:child_process"
import { statSync } from "node:fs"
import { SqliteJournalStore } from "../adapters/storage/journal.repository"
import { type LifecycleStore, openLifecycleStore } from "../adapters/storage/lifecycle.store"
import { fsToolFiles } from "../adapters/workspace/tool.files"
import { defaultForgeOptions } from "../services/config/forge.options"
import { ForgeFiles } from "../services/files/forge.files"
import { FileJournal } from "../services/files/journal"
import { percentileMicros } from "./bench.stats"

export interface BenchFiles {
  files: ForgeFiles
  journal: SqliteJournalStore
  database: LifecycleStore
  /** Bytes of the database file and its write-ahead log on disk. */
  databaseBytes(): { db: number; wal: number }
  close(): Promise<void>
}

/** ForgeFiles as createHostFiles (src/files/files.lazy.ts) builds it, with the default journal bound (files.journalMaxMB). */
export async function openBenchFiles(workspace: string): Promise<BenchFiles> {
  const database = await openLifecycleStore(workspace)
  const journal = new SqliteJournalStore(database.connection)
  const fileJournal = new FileJournal({ store: journal, files: fsToolFiles, clock: { now: () => Date.now() } })
  const files = new ForgeFiles({ files: fsToolFiles, journal: fileJournal, journalLimitBytes: defaultForgeOptions.files.journalMaxMB * 1024 * 1024 })
  const size = (file: string): number => {
    try {
      return statSync(file).size
    } catch {
      return 0
    }
  }
  return {
    files,
    journal,
    database,
    databaseBytes: () => ({ db: size(database.file), wal: size(`${database.file}-wal`) }),
    close: () => database.close(),
  }
}

export interface ProcessRun {
  code: number | null
  /** Nanoseconds from spawn() to the `close` event (the process exited and its output was read to the end). */
  ns: number
  /** Lines the process wrote on stdout (counted as they arrive, nothing kept). */
  lines: number
  stderr: string
}

/**
 * Spawns a command (no shell) and waits for it to exit and its pipes to close. stdout is always a pipe and read: GNU
 * grep notices a stdout that is /dev/null and stops at the first match, which would time less than the search.
 */
export function runProcess(command: string, args: readonly string[], cwd: string): Promise<ProcessRun> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint()
    const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"] })
    let lines = 0
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => {
      for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) lines++
    })
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 2_000) stderr += chunk.toString()
    })
    child.once("error", reject)
    child.once("close", (code) => resolve({ code, ns: Number(process.hrtime.bigint() - start), lines, stderr }))
  })
}

/** Nanoseconds an async call takes. */
export async function timeNs(run: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint()
  await run()
  return Number(process.hrtime.bigint() - start)
}

/** Flushes dirty pages (outside any timing), so a timed run does not pay for the writeback another one left behind. */
export function flushDisk(dir: string): void {
  try {
    execFileSync("sync", ["-f", dir], { stdio: "ignore" })
  } catch {
    execFileSync("sync", { stdio: "ignore" })
  }
}

/** The first line of `command --version`, or "not found". */
export function versionOf(command: string): string {
  try {
    return execFileSync(command, ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).split("\n")[0] ?? "?"
  } catch {
    return "not found"
  }
}

export interface Contender {
  label: string
  /** One timed run (the contender times itself, so untimed preparation stays outside); returns nanoseconds. */
  run(round: number): Promise<number>
}

/**
 * Every contender once per round, the order rotating every round so none always goes first (or always follows the
 * same one); `warmUp` untimed rounds first. Returns nanoseconds per contender, in the contenders' order.
 */
export async function rounds(contenders: readonly Contender[], count: number, warmUp: number): Promise<Float64Array[]> {
  const samples = contenders.map(() => new Float64Array(count))
  for (let round = -warmUp; round < count; round++) {
    for (let k = 0; k < contenders.length; k++) {
      const i = (((round + k) % contenders.length) + contenders.length) % contenders.length
      const ns = await (contenders[i] as Contender).run(round)
      if (round >= 0) (samples[i] as Float64Array)[round] = ns
    }
  }
  return samples
}

/** Median (nearest rank) in milliseconds. */
export const medianMs = (ns: Float64Array): number => percentileMicros(ns, 0.5) / 1000
export const fixedMs = (ms: number): string => (ms < 10 ? ms.toFixed(2) : ms < 1000 ? ms.toFixed(1) : Math.round(ms).toLocaleString("en-US"))
/** A ratio with two significant digits below 1 (0.0033×, never 0.00×), two decimals up to 10, one above. */
export const times = (a: number, b: number): string => {
  const r = a / b
  if (r > 0 && r < 1) return `${r.toPrecision(2)}×`
  return `${r < 10 ? r.toFixed(2) : r.toFixed(1)}×`
}
export const mib = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`
export const count = (n: number): string => n.toLocaleString("en-US")
