// A shared host: one long-lived `opencode serve` that many serve-mode scenarios use one after another, the way
// opencode's desktop and web clients run. opencode boots a project instance, with its plugins, on the first request
// for a directory, so each scenario keeps its own project folder, config (`.opencode/opencode.json`), sessions, event
// stream and lifecycle store; only the process (HOME, environment, memory, log file) is shared. A scenario's end
// disposes its instance (the plugin's dispose runs) and kills what it left running in its folder. One host per lane
// and process, started on first use and again when it died; every host stops when the harness process exits.
import fs from "node:fs"
import path from "node:path"
import { createOpencodeClient } from "@opencode-ai/sdk/client"
import { descendants, freePort, spawnTracked, withTimeout, type Spawned } from "./processes"
import {
  type HomeDirs,
  type HostHome,
  homeDirs,
  liveRoot,
  logSizes,
  opencodeEnvironment,
  opencodeVersion,
  prepareHome,
  readLogDir,
  releaseRoot,
} from "./sandbox"

const START_TIMEOUT_MS = 60_000
const DISPOSE_TIMEOUT_MS = 15_000

export interface SharedHost extends HostHome {
  /** The host's base URL. */
  readonly url: string
  readonly pid: number
  alive(): boolean
  /**
   * The scenario in `project` is over: its instance is disposed (the plugin's dispose hook runs) and every process
   * whose working directory lies in `scope` (the scenario's root) is killed, with its descendants.
   */
  release(project: string, scope: string): Promise<void>
  stop(): Promise<void>
}

/** The most sweeps a release makes for processes left in a scenario's folder. */
const RELEASE_SWEEPS = 20

/** The global config every project of the host starts from; each scenario's own config is merged over it. */
const HOST_CONFIG = { $schema: "https://opencode.ai/config.json", autoupdate: false, share: "disabled" }

function isInside(file: string, dir: string): boolean {
  return file === dir || file.startsWith(`${dir}${path.sep}`)
}

/** Live processes whose working directory lies inside `dir` (Linux /proc). */
function processesIn(dir: string): number[] {
  if (process.platform !== "linux") return []
  const found: number[] = []
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (isInside(fs.readlinkSync(`/proc/${entry}/cwd`), dir)) found.push(Number(entry))
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found
}

/** Whether `pid` runs and is no zombie (Linux /proc). */
function isRunning(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z"
  } catch {
    return false
  }
}

function kill(pid: number): void {
  try {
    process.kill(pid, "SIGKILL")
  } catch {
    // already gone
  }
}

async function startHost(repoRoot: string, bin: string): Promise<SharedHost> {
  const root = liveRoot("forge-e2e-host-")
  const dirs: HomeDirs = homeDirs(root)
  let proc: Spawned | undefined
  try {
    prepareHome(dirs, opencodeVersion(repoRoot))
    fs.writeFileSync(path.join(dirs.configDir, "opencode.json"), JSON.stringify(HOST_CONFIG, null, 2))
    // opencode 1.18.33's file watcher (notify's inotify backend) can abort the whole process when an instance is
    // disposed ("panicked at notify-9.0.0-rc.4/src/inotify.rs: Bad file descriptor"), which a shared host does at the
    // end of every scenario. Nothing Forge does reads the watcher, so a shared host runs without it.
    const env = opencodeEnvironment(dirs, { OPENCODE_EXPERIMENTAL_DISABLE_FILEWATCHER: "1" })
    const port = await freePort()
    let out = ""
    let resolveUrl: (url: string) => void = () => {}
    const listening = new Promise<string>((resolve) => (resolveUrl = resolve))
    const started = spawnTracked(
      bin,
      ["serve", "--hostname", "127.0.0.1", "--port", String(port), "--log-level", process.env.FORGE_E2E_HOST_LOG_LEVEL ?? "INFO"],
      {
        cwd: root,
        env,
        onStdout: (chunk) => {
          out += chunk
          const m = /listening on (http:\/\/\S+)/.exec(out)
          if (m?.[1]) resolveUrl(m[1])
        },
      },
    )
    proc = started
    const url = await withTimeout(
      Promise.race([listening, started.exited.then((code) => Promise.reject(new Error(`shared opencode serve exited with ${code}: ${started.stderr()}`)))]),
      START_TIMEOUT_MS,
      `shared opencode serve did not listen within ${START_TIMEOUT_MS} ms`,
    )
    const pid = started.child.pid ?? 0
    let exited = false
    let stopping = false
    void started.exited.then((code) => {
      exited = true
      // A host that dies on its own takes its scenario down: say why, where a run's output shows it.
      if (!stopping)
        console.warn(`shared opencode host ${url} (pid ${pid}) exited with ${code} on its own; its stderr ends:\n${started.stderr().slice(-4_000)}`)
    })
    return {
      url,
      pid,
      home: dirs.home,
      xdgData: dirs.xdgData,
      configDir: dirs.configDir,
      env,
      // The exit event of a process that just died may not have come yet: /proc is asked too.
      alive: () => !exited && isRunning(pid),
      logsFromNow: () => {
        const sizes = logSizes(dirs.xdgData)
        const stderrFrom = started.stderr().length
        return () => `${readLogDir(dirs.xdgData, sizes)}\n--- shared host stderr ---\n${started.stderr().slice(stderrFrom)}`
      },
      release: async (project, scope) => {
        if (!exited) {
          const client = createOpencodeClient({ baseUrl: url, directory: project })
          await withTimeout(client.instance.dispose(), DISPOSE_TIMEOUT_MS, "dispose timed out").catch(() => undefined)
        }
        // What the scenario started and left running, also what detached from the host (a double fork): every process
        // working in the scenario's folder, with whatever it started. Swept again until none is left: a process
        // forking (or a shell starting one) while a sweep runs leaves a child the sweep did not see.
        for (let sweep = 0; sweep < RELEASE_SWEEPS; sweep++) {
          const found = processesIn(scope)
          if (found.length === 0) break
          for (const p of found) for (const child of [p, ...descendants(p)]) kill(child)
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
      },
      stop: async () => {
        stopping = true
        await started.stop()
        releaseRoot(root)
      },
    }
  } catch (err) {
    await proc?.stop()
    releaseRoot(root)
    throw err
  }
}

const hosts = new Map<number, Promise<SharedHost>>()

/** The shared host of `lane` in this process: started on first use, and again when the last one died. */
export async function sharedHost(lane: number, repoRoot: string, bin: string): Promise<SharedHost> {
  const existing = hosts.get(lane)
  if (existing) {
    const host = await existing.catch(() => undefined)
    if (host?.alive()) return host
    if (host) await host.stop()
  }
  const starting = startHost(repoRoot, bin)
  hosts.set(lane, starting)
  starting.catch(() => hosts.delete(lane))
  return starting
}

/** Stops every shared host of this process (the end of a test file or of a CLI run). */
export async function closeSharedHosts(): Promise<void> {
  const all = [...hosts.values()]
  hosts.clear()
  await Promise.all(all.map(async (h) => (await h.catch(() => undefined))?.stop()))
}
