// One measured `opencode run`: the e2e harness's hermetic sandbox and scripted fake model. The model first calls
// `read` on a file (a tool call in a session that holds no lifecycle), then, with the plugin, `forge_read` on it (the
// first Forge tool call, which loads Forge's services), then answers a text. Measured: milliseconds from just before
// spawn() to the fake model receiving the session's first chat request; from that request to the next (the `read`
// round trip: opencode's handling, the plugin's tool hooks, the read itself); the `forge_read` round trip; and the opencode
// process's peak RSS (the kernel's own high-water mark, VmHWM, read from /proc/<pid>/status every 10 ms until the
// process exits; the last reading counts). Also the CPU time opencode used (user + system, /proc/<pid>/stat) by the
// first request and in all: unlike wall time it hardly moves with the machine's load.
import { execFileSync } from "node:child_process"
import fs from "node:fs"
import path from "node:path"
import { startFakeLlm } from "../test/e2e/fake-llm"
import { sleep, spawnTracked, withTimeout } from "../test/e2e/processes"
import { createSandbox, HARNESS_TIMINGS, releaseSandbox } from "../test/e2e/sandbox"
import { type ModelStep, scenarioSchema } from "../test/e2e/scenario.schema"

export interface RunSetup {
  bin: string
  repoRoot: string
  hostVersion: string
  /** Whether the plugin is in the config (installed as `file://`, as the e2e tests install it). */
  plugin: boolean
  /** The plugin file, relative to the repository: the sources' `src/server.ts` (default) or the bundle `dist/server.js`. */
  pluginPath?: string
  /** The first Forge tool call (with the plugin): `forge_read` of the notes file unless given. */
  forgeCall?: { tool: string; args: Record<string, unknown> }
  /** Fills the project folder before opencode starts (e.g. copies a seeded `.opencode/`). */
  seed?: (project: string) => void
}

export interface RunSample {
  /** From just before spawn() to the first chat request that offers tools (the session's turn, not a title). */
  firstRequestMs: number
  /** From the first chat request to the second, which carries the `read` call's result. */
  toolRoundTripMs: number
  /** With the plugin: from the second chat request to the third, which carries the first Forge tool call's result
   * (`forge_read` of the same file): the call that loads Forge's services. NaN without the plugin. */
  forgeRoundTripMs: number
  /** CPU time (user + system) opencode had used when its first chat request arrived. */
  firstRequestCpuMs: number
  /** CPU time opencode used in all (the last reading before it exited). */
  cpuMs: number
  /** From just before spawn() to the process's exit. */
  exitMs: number
  /** Last VmHWM read before the process exited, in KiB. */
  peakRssKiB: number
  /** VmHWM readings taken. */
  rssSamples: number
  /** Tools the first chat request offered the model. */
  tools: string[]
  exitCode: number | null
  /** Whether opencode reported the `read` call (and, with the plugin, the `forge_read` call) completed. */
  toolCompleted: boolean
  /** The opencode log files, for the run's own checks (plugin loaded, records restored). */
  logs: string
  stderr: string
}

const RUN_TIMEOUT_MS = 120_000
const NOTES_FILE = "notes.txt"
const RSS_POLL_MS = 10
const PROMPT = "Read notes.txt, then say done."

/** VmHWM of a live process in KiB, or undefined once it is gone (a zombie has no Vm lines). */
export function readPeakRssKiB(pid: number): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))
    return match ? Number(match[1]) : undefined
  } catch {
    return undefined
  }
}

/** Whether `opencode run --format json` reported a completed call of `tool`. */
function toolCompleted(stdout: string, tool: string): boolean {
  return stdout.split("\n").some((line) => {
    try {
      const ev = JSON.parse(line) as { type?: string; part?: { tool?: string; state?: { status?: string } } }
      return ev.type === "tool_use" && ev.part?.tool === tool && ev.part.state?.status === "completed"
    } catch {
      return false
    }
  })
}

/** Clock ticks per second of /proc/<pid>/stat's utime and stime. */
const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100

/** User + system CPU time of a live process in ms (tick resolution), or undefined once it is gone. */
export function readCpuMs(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    // "pid (comm) state ppid …": comm may hold spaces; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS
  } catch {
    return undefined
  }
}

function readLogs(xdgData: string): string {
  const dir = path.join(xdgData, "opencode", "log")
  if (!fs.existsSync(dir)) return ""
  return fs
    .readdirSync(dir)
    .sort()
    .map((f) => fs.readFileSync(path.join(dir, f), "utf8"))
    .join("\n")
}

export async function measureRun(setup: RunSetup): Promise<RunSample> {
  const scenario = scenarioSchema.parse({
    name: "startup bench",
    pluginPath: setup.pluginPath,
    turns: [{ prompt: PROMPT }],
    model: [
      { tool: "read", args: { filePath: NOTES_FILE } },
      ...(setup.plugin ? [setup.forgeCall ?? { tool: "forge_read", args: { path: `{{project}}/${NOTES_FILE}` } }] : []),
      { text: "done" },
    ],
  })
  const requests: number[] = []
  let tools: string[] = []
  let pid: number | undefined
  let firstRequestCpu: number | undefined
  // Filled in once the sandbox exists: forge_read takes an absolute path.
  const steps: ModelStep[] = []
  const fake = await startFakeLlm(steps, (record) => {
    if (record.kind === "title") return
    if (requests.length === 0) {
      tools = record.tools
      if (pid !== undefined) firstRequestCpu = readCpuMs(pid)
    }
    requests.push(performance.now())
  })
  const sandbox = createSandbox(scenario, { repoRoot: setup.repoRoot, llmUrl: fake.url, hostVersion: setup.hostVersion })
  steps.push(...scenario.model.map((step) => sandbox.expand(step)))
  // Production timings: the harness lowers the background restore's delay for its scenarios; a user's opencode waits.
  for (const key of Object.keys(HARNESS_TIMINGS)) delete sandbox.env[key]
  try {
    if (!setup.plugin) {
      // The same config with the plugin entry removed: everything else (model, provider, permissions) stays equal.
      const config = JSON.parse(sandbox.env.OPENCODE_CONFIG_CONTENT ?? "{}") as Record<string, unknown>
      sandbox.env.OPENCODE_CONFIG_CONTENT = JSON.stringify({ ...config, plugin: [] })
    }
    setup.seed?.(sandbox.project)
    fs.writeFileSync(path.join(sandbox.project, NOTES_FILE), "nothing to see here\n")
    const args = ["run", "--format", "json", "--log-level", "INFO", "--title", "startup bench", "--", PROMPT]
    const start = performance.now()
    const proc = spawnTracked(setup.bin, args, { cwd: sandbox.project, env: sandbox.env })
    pid = proc.child.pid
    if (pid === undefined) throw new Error(`opencode did not start: ${proc.stderr()}`)
    const child = pid
    let peak = 0
    let cpu = 0
    let samples = 0
    let exited = false
    let exitAt = 0
    const ended = proc.exited.then((code) => {
      exitAt = performance.now()
      exited = true
      return code
    })
    const sampler = (async () => {
      while (!exited) {
        const kib = readPeakRssKiB(child)
        if (kib !== undefined) {
          peak = Math.max(peak, kib)
          samples++
        }
        cpu = readCpuMs(child) ?? cpu
        await sleep(RSS_POLL_MS)
      }
    })()
    let exitCode: number | null
    try {
      exitCode = await withTimeout(ended, RUN_TIMEOUT_MS, `opencode run did not exit within ${RUN_TIMEOUT_MS} ms`)
    } catch (error) {
      await proc.stop()
      throw error
    } finally {
      exited = true
      await sampler
    }
    const [first, second, third] = requests
    const expected = setup.plugin ? 3 : 2
    if (first === undefined || second === undefined || (setup.plugin && third === undefined)) {
      throw new Error(`opencode exited (code ${exitCode}) after ${requests.length} model request(s), expected ${expected}:\n${proc.stderr().slice(-2_000)}`)
    }
    return {
      firstRequestMs: first - start,
      toolRoundTripMs: second - first,
      forgeRoundTripMs: third === undefined ? Number.NaN : third - second,
      firstRequestCpuMs: firstRequestCpu ?? Number.NaN,
      cpuMs: cpu,
      toolCompleted: toolCompleted(proc.stdout(), "read") && (!setup.plugin || toolCompleted(proc.stdout(), setup.forgeCall?.tool ?? "forge_read")),
      exitMs: exitAt - start,
      peakRssKiB: peak,
      rssSamples: samples,
      tools,
      exitCode,
      logs: readLogs(sandbox.xdgData),
      stderr: proc.stderr(),
    }
  } finally {
    await fake.close()
    releaseSandbox(sandbox)
  }
}
