// Spawns Forge runtimes in real child processes (runtime.child.ts) on one temp workspace and talks to them over the
// JSON-line protocol. Every child a test started is ended in afterEach (a polite exit first, SIGKILL after a grace
// period), before tempDir removes the workspace, so no process and no file outlives the test.
import { type ChildProcess, spawn } from "node:child_process"
import { createHash } from "node:crypto"
import fs from "node:fs"
import path from "node:path"
import { buildSync } from "esbuild"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { afterEach, beforeEach } from "vitest"
import type { DialogRequest } from "../../../services/lifecycle/lifecycle.ports"
import { tempDir } from "../../temp.dir"
import { type Answer, type ArgsOf, type ChildEvent, type Ops, type PluginOps, type RemoteError, SESSIONS_ENV, type ValueOf, WORKSPACE_ENV } from "./protocol"

const here = path.dirname(fileURLToPath(import.meta.url))
const repoRoot = path.resolve(here, "../../..")
const childScript = path.join(here, "runtime.child.ts")
const pluginScript = path.join(here, "plugin.child.ts")
/** Beside node_modules, so that the bundle's packages resolve as the sources' do. */
const bundleDir = path.join(repoRoot, "node_modules", ".cache", "forge-crossprocess")

const childEntries = new Map<string, string>()
/**
 * runtime.child.ts bundled into one module, once per test file: a child then starts in well under a second, where
 * `--import tsx` resolved and transformed the whole runtime through loader hooks in every child (about 2 s of CPU
 * each, the largest part of the process tests). Named by its content, written by rename: any run may share it.
 */
function bundledChild(script = childScript): string {
  const known = childEntries.get(script)
  if (known !== undefined) return known
  const output = buildSync({
    entryPoints: [script],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    sourcemap: "inline",
    write: false,
  }).outputFiles[0]
  if (output === undefined) throw new Error(`esbuild wrote nothing for ${script}`)
  const file = path.join(bundleDir, `${path.basename(script, ".ts")}.${createHash("sha256").update(output.contents).digest("hex").slice(0, 16)}.mjs`)
  if (!fs.existsSync(file)) {
    fs.mkdirSync(bundleDir, { recursive: true })
    const temp = `${file}.${process.pid}.tmp`
    fs.writeFileSync(temp, output.contents)
    fs.renameSync(temp, file)
  }
  childEntries.set(script, file)
  return file
}

/** How long one request may take before the test fails naming it (a step waits at most 5 s on SQLite's lock). */
const CALL_TIMEOUT_MS = 20_000
const START_TIMEOUT_MS = 30_000
const EXIT_GRACE_MS = 5_000

/** An error the child answered with: its name and message as the runtime threw them. */
export class ChildError extends Error {
  constructor(
    readonly process: string,
    readonly remote: RemoteError,
  ) {
    super(remote.message)
    this.name = remote.name
  }
}

export type Outcome<K extends keyof O, O = Ops> = { ok: true; value: ValueOf<O, K> } | { ok: false; error: RemoteError }

/** One runtime (or, with PluginOps, the whole plugin) in its own process. */
export class RuntimeProcess<O = Ops> {
  private nextId = 1
  private readonly pending = new Map<number, (answer: Answer) => void>()
  private readonly dialogs = new Map<string, DialogRequest>()
  private readonly dialogWaiters = new Map<string, (request: DialogRequest) => void>()
  private stderrText = ""
  private readonly exited: Promise<void>
  readonly ready: Promise<{ pid: number }>

  constructor(
    readonly name: string,
    private readonly child: ChildProcess,
  ) {
    // Writing to a child that just died fails on the pipe; its exit (below) is what the test hears about.
    child.stdin?.on("error", () => undefined)
    child.stderr?.on("data", (data: Buffer) => {
      this.stderrText += data.toString()
    })
    this.exited = new Promise((resolve) => child.once("exit", () => resolve()))
    let started: (value: { pid: number }) => void = () => undefined
    let failed: (error: Error) => void = () => undefined
    this.ready = new Promise((resolve, reject) => {
      started = resolve
      failed = reject
    })
    // A child that dies early answers every open request (and the start) with its last words instead of a timeout.
    void this.exited.then(() => {
      failed(new Error(`${name} exited before it was ready\n${this.diagnostics()}`))
      for (const [id, settle] of this.pending) settle({ id, ok: false, error: { name: "ChildExited", message: `${name} exited\n${this.diagnostics()}` } })
      this.pending.clear()
    })
    if (child.stdout === null) throw new Error(`${name}: spawned without a stdout pipe`)
    const lines = createInterface({ input: child.stdout })
    lines.on("line", (line) => this.receive(line, started, failed))
  }

  /** The child's process id. */
  get pid(): number {
    return this.child.pid ?? -1
  }

  /** The op's value; rejects with ChildError when the runtime threw. */
  async call<K extends keyof O & string>(op: K, args: ArgsOf<O, K>): Promise<ValueOf<O, K>> {
    const outcome = await this.attempt(op, args)
    if (!outcome.ok) throw new ChildError(this.name, outcome.error)
    return outcome.value
  }

  /** The op's value or the error it threw, as data: for races where either outcome is allowed and then checked. */
  attempt<K extends keyof O & string>(op: K, args: ArgsOf<O, K>): Promise<Outcome<K, O>> {
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id)
        reject(new Error(`${this.name}: ${op} ${JSON.stringify(args)} got no answer in ${CALL_TIMEOUT_MS} ms\n${this.diagnostics()}`))
      }, CALL_TIMEOUT_MS)
      this.pending.set(id, (answer) => {
        clearTimeout(timer)
        resolve(answer.ok ? { ok: true, value: answer.value as ValueOf<O, K> } : { ok: false, error: answer.error })
      })
      this.child.stdin?.write(`${JSON.stringify({ id, op, args })}\n`)
    })
  }

  /** Resolves once the child holds the dialog `hold` open (see DialogAnswer); a dialog that never opens fails in time. */
  dialogOpened(hold: string): Promise<DialogRequest> {
    const open = this.dialogs.get(hold)
    if (open !== undefined) return Promise.resolve(open)
    const opened = new Promise<DialogRequest>((resolve) => this.dialogWaiters.set(hold, resolve))
    return withTimeout(opened, CALL_TIMEOUT_MS, () => `${this.name} never opened the dialog "${hold}" (was the call refused?)\n${this.diagnostics()}`)
  }

  /** Ends the child: a polite exit (closes its runtime), SIGKILL when it does not go within the grace period. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return
    // Every child's table has `exit`.
    void (this as unknown as RuntimeProcess<Ops>).attempt("exit", {}).catch(() => undefined)
    const gone = await Promise.race([this.exited.then(() => true), sleep(EXIT_GRACE_MS).then(() => false)])
    if (gone) return
    this.child.kill("SIGKILL")
    await this.exited
  }

  /** Kills the child with SIGKILL, as a crash would: nothing of it runs on, its records stop where they are. */
  async crash(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return
    this.child.kill("SIGKILL")
    await this.exited
  }

  /** What the child wrote to stderr (the runtime's log), for failure messages. */
  diagnostics(): string {
    return `--- ${this.name} stderr ---\n${this.stderrText.slice(-4000)}`
  }

  private receive(line: string, started: (value: { pid: number }) => void, failed: (error: Error) => void): void {
    let parsed: Answer | ChildEvent
    try {
      parsed = JSON.parse(line) as Answer | ChildEvent
    } catch {
      this.stderrText += `[stdout, not protocol] ${line}\n`
      return
    }
    if ("event" in parsed) {
      if (parsed.event === "ready") {
        // A runtime on the in-memory stand-in shares nothing with the others: every race would pass vacuously.
        if (parsed.storageTrouble !== null) failed(new Error(`${this.name} could not use the workspace database: ${parsed.storageTrouble}`))
        else started({ pid: parsed.pid })
      } else if (parsed.event === "fatal") {
        failed(new Error(`${this.name} failed to start: ${parsed.message}\n${this.diagnostics()}`))
      } else {
        this.dialogs.set(parsed.hold, parsed.request)
        this.dialogWaiters.get(parsed.hold)?.(parsed.request)
        this.dialogWaiters.delete(parsed.hold)
      }
      return
    }
    const settle = this.pending.get(parsed.id)
    this.pending.delete(parsed.id)
    settle?.(parsed)
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** `promise`, or a rejection naming what did not happen in time. */
async function withTimeout<T>(promise: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what()} (after ${ms} ms)`)), ms)
  })
  try {
    return await Promise.race([promise, late])
  } finally {
    clearTimeout(timer)
  }
}

/** How the child's stand-in for opencode reports sessions (see SESSIONS_ENV). */
export interface RuntimeOptions {
  sessions?: "idle" | "busy"
}

function spawnRuntime<O = Ops>(
  name: string,
  workspace: string,
  options: RuntimeOptions,
  script = childScript,
  env: Record<string, string> = {},
): RuntimeProcess<O> {
  const child = spawn(process.execPath, ["--enable-source-maps", bundledChild(script)], {
    cwd: repoRoot,
    env: { ...process.env, ...env, [WORKSPACE_ENV]: workspace, [SESSIONS_ENV]: options.sessions ?? "idle" },
    stdio: ["pipe", "pipe", "pipe"],
  })
  return new RuntimeProcess<O>(name, child)
}

export interface SharedWorkspace {
  /** The workspace folder of the current test. */
  readonly dir: string
  /** Starts runtimes on the workspace side by side (their databases open concurrently) and waits until each is ready. */
  start(...names: string[]): Promise<RuntimeProcess[]>
  /** The same, with options for every runtime started. */
  startWith(options: RuntimeOptions, ...names: string[]): Promise<RuntimeProcess[]>
  /** Starts the whole plugin (plugin.child.ts) in each process, with `env` (the test seams) added to its environment. */
  startPlugins(env: Record<string, string>, ...names: string[]): Promise<RuntimeProcess<PluginOps>[]>
}

/** A fresh workspace per test of the calling suite, and the runtimes started on it, all ended after the test. */
export function useSharedWorkspace(): SharedWorkspace {
  let dir: string | undefined
  const started: { stop(): Promise<void> }[] = []
  beforeEach(() => {
    dir = tempDir("forge-crossprocess-")
  })
  afterEach(async () => {
    const stopping = started.splice(0)
    await Promise.all(stopping.map((runtime) => runtime.stop()))
  })
  const ready = async <O>(runtimes: RuntimeProcess<O>[]): Promise<RuntimeProcess<O>[]> => {
    started.push(...runtimes)
    await Promise.all(runtimes.map((runtime) => withTimeout(runtime.ready, START_TIMEOUT_MS, () => `${runtime.name} was not ready\n${runtime.diagnostics()}`)))
    return runtimes
  }
  const current = (): string => {
    if (dir === undefined) throw new Error("useSharedWorkspace: no workspace outside a test")
    return dir
  }
  return {
    get dir() {
      return current()
    },
    start(...names) {
      return this.startWith({}, ...names)
    },
    async startWith(options, ...names) {
      const runtimes = names.map((name) => spawnRuntime(name, current(), options))
      return ready(runtimes)
    },
    async startPlugins(env, ...names) {
      return ready(names.map((name) => spawnRuntime<PluginOps>(name, current(), {}, pluginScript, env)))
    },
  }
}
