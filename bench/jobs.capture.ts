// Output floods: how fast a foreground forge_shell job can write its output (the job's stdout IS its log file)
// against the same writer redirected to a file by a plain `sh -c '… > file'`, and how much the host's memory grows
// while it happens, against a naive host that collects a piped stdout into an array of Buffers.
import { execFileSync, spawn } from "node:child_process"
import path from "node:path"
import { type BenchJobs, elapsedMs, jobIdOf, peakRssIncrease, removeFile, sizeOrMissing } from "./jobs.harness"

/** A fast writer of exactly `bytes` bytes on stdout. */
export const writerCommand = (bytes: number): string => `head -c ${bytes} /dev/zero`

export interface ThroughputRun {
  forgeMs: number[]
  rawMs: number[]
}

/** Runs a command under /bin/sh with no stdio and resolves with its exit code when its `exit` event arrives. */
function runSh(command: string, cwd: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn("/bin/sh", ["-c", command], { cwd, stdio: "ignore" })
    child.once("error", reject)
    child.once("exit", (code) => resolve(code))
  })
}

/** One foreground forge_shell job writing `bytes`; checks the status and that the log holds every byte, then deletes it. */
export async function forgeFlood(jobs: BenchJobs, bytes: number, problems: string[]): Promise<number> {
  const start = process.hrtime.bigint()
  const result = await jobs.supervisor.run("bench-flood", jobs.request({ command: writerCommand(bytes) }))
  const ms = elapsedMs(start)
  const logFile = path.join(jobs.logDir, `${jobIdOf(result)}.log`)
  const size = sizeOrMissing(logFile)
  removeFile(logFile)
  if (!result.includes("status: exited with exit code 0")) problems.push(`a ${bytes}-byte forge_shell job did not exit cleanly:\n${result.slice(0, 300)}`)
  if (size !== bytes) problems.push(`the forge_shell log of a ${bytes}-byte job held ${size} bytes`)
  return ms
}

/** The raw baseline: the same writer redirected to a file by sh, spawned directly; the file is checked and deleted. */
export async function rawFlood(dir: string, bytes: number, problems: string[]): Promise<number> {
  const file = path.join(dir, "raw.out")
  const start = process.hrtime.bigint()
  const code = await runSh(`${writerCommand(bytes)} > '${file}'`, dir)
  const ms = elapsedMs(start)
  const size = sizeOrMissing(file)
  removeFile(file)
  if (code !== 0) problems.push(`the raw writer exited with code ${code}`)
  if (size !== bytes) problems.push(`the raw writer's file held ${size} bytes instead of ${bytes}`)
  return ms
}

/**
 * Flushes the file system's dirty pages before a timed flood, outside the timing: a 1 GiB writer otherwise pays for
 * whatever writeback the previous run (or anyone else on the machine) left pending, which swamps the comparison.
 */
export function flushDisk(dir: string): void {
  try {
    execFileSync("sync", ["-f", dir], { stdio: "ignore" })
  } catch {
    execFileSync("sync", { stdio: "ignore" })
  }
}

/** Alternates the two writers (which one goes first flips every round) so neither always meets a warmer cache. */
export async function measureThroughput(jobs: BenchJobs, dir: string, bytes: number, rounds: number, problems: string[]): Promise<ThroughputRun> {
  const forgeMs: number[] = []
  const rawMs: number[] = []
  for (let round = 0; round < rounds; round++) {
    const raw = async (): Promise<void> => {
      flushDisk(dir)
      rawMs.push(await rawFlood(dir, bytes, problems))
    }
    const forge = async (): Promise<void> => {
      flushDisk(dir)
      forgeMs.push(await forgeFlood(jobs, bytes, problems))
    }
    if (round % 2 === 0) {
      await raw()
      await forge()
    } else {
      await forge()
      await raw()
    }
  }
  return { forgeMs, rawMs }
}

/** MB/s (10^6 bytes) of `bytes` written in `ms`. */
export const megabytesPerSecond = (bytes: number, ms: number): number => bytes / 1e6 / (ms / 1000)

export interface MemoryRun {
  bytes: number
  /** Peak RSS above the reading before the job started, in bytes. */
  peak: number
  ms: number
  samples: number
}

/** Peak host RSS growth while a foreground forge_shell job writes `bytes`. */
export async function forgeMemory(jobs: BenchJobs, bytes: number, problems: string[]): Promise<MemoryRun> {
  const run = await peakRssIncrease(() => forgeFlood(jobs, bytes, problems))
  return { bytes, peak: run.peak, ms: run.value, samples: run.samples }
}

/** The naive host: stdout piped into the host and every chunk kept in an array until the process exits. */
export async function naiveMemory(dir: string, bytes: number, problems: string[]): Promise<MemoryRun> {
  const start = process.hrtime.bigint()
  const run = await peakRssIncrease(
    () =>
      new Promise<number>((resolve, reject) => {
        const chunks: Buffer[] = []
        let total = 0
        const child = spawn("/bin/sh", ["-c", writerCommand(bytes)], { cwd: dir, stdio: ["ignore", "pipe", "ignore"] })
        child.once("error", reject)
        child.stdout.on("data", (chunk: Buffer) => {
          chunks.push(chunk)
          total += chunk.length
        })
        // `close`, not `exit`: the naive host waits for the end of the pipe, or it would lose the last chunks.
        child.once("close", () => {
          if (total !== bytes || chunks.reduce((n, c) => n + c.length, 0) !== bytes)
            problems.push(`the naive capture collected ${total} bytes instead of ${bytes}`)
          chunks.length = 0
          resolve(total)
        })
      }),
  )
  return { bytes, peak: run.peak, ms: elapsedMs(start), samples: run.samples }
}
