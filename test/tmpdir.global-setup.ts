// Every vitest run gets its own fresh OS temp dir: TMPDIR (and TMP/TEMP) point into it for the workers and every
// process they spawn, so whatever a test or a child of it leaves in the temp dir lands here. At teardown the run
// fails naming every entry left and every process of the run still running (killed), then the dir goes, so even a
// failing run leaves nothing behind. Where the machine has a RAM filesystem, the run gets a private dir there too
// (FORGE_TEST_RAMDIR, see ramTempDir in temp.dir.ts), checked and removed the same way.
import fs from "node:fs"
import os from "node:os"
import path from "node:path"

/** Set while a run's private temp dir is in place: the machine's own temp dir, for what must stay machine-wide. */
export const MACHINE_TMPDIR_ENV = "FORGE_MACHINE_TMPDIR"
/** Set while the run's private dir on a RAM filesystem is in place (absent where there is none). */
export const RAM_TMPDIR_ENV = "FORGE_TEST_RAMDIR"
/** Linux's RAM filesystem, there for every user. */
const RAM_FS = "/dev/shm"

const TEMP_VARS = ["TMPDIR", "TMP", "TEMP"] as const

/**
 * tsx keeps its transform cache (and its IPC pipes) in `<tmp>/tsx-<uid>`, shared machine-wide and meant to outlive
 * runs: the run's dir links to the machine's one, so tsx children start as fast as before and the link is the
 * run's own entry, not a leak.
 */
function linkTsxCache(machineTmp: string, runDir: string): string {
  const name = `tsx-${process.geteuid?.() ?? os.userInfo().username}`
  fs.mkdirSync(path.join(machineTmp, name), { recursive: true })
  fs.symlinkSync(path.join(machineTmp, name), path.join(runDir, name), "junction")
  return name
}

/** The entries under `dir`, a few levels deep, so a leak names the folder and what is in it. */
function describeEntries(dir: string, depth = 3, prefix = ""): string[] {
  const lines: string[] = []
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const rel = path.join(prefix, entry.name)
    if (!entry.isDirectory()) {
      lines.push(rel)
      continue
    }
    const inner = depth > 1 ? describeEntries(path.join(dir, entry.name), depth - 1, rel) : []
    lines.push(inner.length === 0 ? `${rel}/` : `${rel}/ (${inner.length} inside)`, ...inner.slice(0, 5).map((l) => `  ${l}`))
    if (inner.length > 5) lines.push(`  … ${inner.length - 5} more`)
  }
  return lines
}

/**
 * Live processes (Linux /proc) that run with TMPDIR inside `runDir`: every process the run started inherits it, so
 * besides this process's own workers these are the ones a test left running, which may still write into the dir.
 */
function processesOfRun(runDir: string): { pid: number; command: string }[] {
  if (process.platform !== "linux") return []
  const found: { pid: number; command: string }[] = []
  for (const pid of fs.readdirSync("/proc").filter((entry) => /^\d+$/.test(entry))) {
    try {
      const env = fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0")
      const tmp = env.find((v) => v.startsWith("TMPDIR="))?.slice("TMPDIR=".length)
      if (tmp === undefined || (tmp !== runDir && !tmp.startsWith(`${runDir}${path.sep}`))) continue
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === process.pid) continue
      found.push({ pid: Number(pid), command: fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim().slice(0, 160) })
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found
}

/** The run's processes still alive after a generous grace period, SIGKILLed so they write nothing more. */
async function killLeftoverProcesses(runDir: string): Promise<string[]> {
  // Only tells "ended" from "left running": a process a test just killed may take a moment to go on a busy machine.
  for (let waited = 0; waited < 5_000 && processesOfRun(runDir).length > 0; waited += 100) await new Promise((r) => setTimeout(r, 100))
  const left = processesOfRun(runDir)
  for (const { pid } of left) {
    try {
      process.kill(pid, "SIGKILL")
    } catch {
      // Already gone.
    }
  }
  return left.map(({ pid, command }) => `pid ${pid}: ${command}`)
}

/** A fresh private dir on the RAM filesystem; undefined where there is none (or it cannot be written). */
function makeRamDir(): string | undefined {
  if (process.platform !== "linux") return undefined
  try {
    return fs.realpathSync(fs.mkdtempSync(path.join(RAM_FS, "forge-test-run-")))
  } catch {
    return undefined
  }
}

/** Removes a private dir of the run; what the tests left in it (besides `own`), described, for the failure. */
function removeRunDir(dir: string, where: string, own: ReadonlySet<string> = new Set()): string | undefined {
  for (const name of own) fs.rmSync(path.join(dir, name), { force: true })
  const top = fs.readdirSync(dir)
  const left = top.length === 0 ? [] : describeEntries(dir)
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 })
  if (top.length === 0) return undefined
  return (
    `the tests left ${top.length} entr${top.length === 1 ? "y" : "ies"} in ${where} (${dir}, now removed); ` +
    `every test must remove what it creates:\n${left.map((l) => `  ${l}`).join("\n")}`
  )
}

export function setup(): () => Promise<void> {
  const machineTmp = process.env[MACHINE_TMPDIR_ENV] ?? os.tmpdir()
  const runDir = fs.realpathSync(fs.mkdtempSync(path.join(machineTmp, "forge-test-run-")))
  let own: Set<string>
  try {
    own = new Set([linkTsxCache(machineTmp, runDir)])
  } catch (error) {
    fs.rmSync(runDir, { recursive: true, force: true })
    throw error
  }
  const saved = Object.fromEntries([...TEMP_VARS, MACHINE_TMPDIR_ENV, RAM_TMPDIR_ENV].map((name) => [name, process.env[name]]))
  process.env[MACHINE_TMPDIR_ENV] = machineTmp
  for (const name of TEMP_VARS) process.env[name] = runDir
  const ramDir = makeRamDir()
  if (ramDir === undefined) delete process.env[RAM_TMPDIR_ENV]
  else process.env[RAM_TMPDIR_ENV] = ramDir

  return async () => {
    const processes = await killLeftoverProcesses(runDir)
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
    const problems: string[] = []
    if (processes.length > 0)
      problems.push(`the tests left ${processes.length} process(es) running (now killed):\n${processes.map((p) => `  ${p}`).join("\n")}`)
    const leftInTmp = removeRunDir(runDir, "the OS temp dir", own)
    if (leftInTmp !== undefined) problems.push(leftInTmp)
    const leftInRam = ramDir === undefined ? undefined : removeRunDir(ramDir, "the RAM temp dir")
    if (leftInRam !== undefined) problems.push(leftInRam)
    if (problems.length === 0) return
    process.exitCode = 1
    throw new Error(problems.join("\n"))
  }
}
