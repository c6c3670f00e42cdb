// The hermetic world of one scenario: a temp root holding the project and, on a host of its own, HOME and every XDG
// dir; config dirs seeded so opencode's hidden npm install is a no-op; the plugin installed the way the scenario asks;
// and an environment built from a short allow-list (nothing of the caller's opencode or provider settings leaks in).
// On a shared host (shared.host.ts) HOME is the host's, and the scenario's whole opencode config goes into the
// project's own config dir (`.opencode/opencode.json`), which opencode reads for that directory alone.
import { execFileSync } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { killAll } from "./processes"
import type { Scenario } from "./scenario.schema"

/** The repository this harness lives in (two levels above test/e2e/). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")

/** Roots not yet removed or kept: removed when the harness process exits (e.g. Ctrl-C of the CLI). */
const liveRoots = new Set<string>()
process.on("exit", () => {
  if (liveRoots.size === 0) return
  killAll()
  for (const root of liveRoots) fs.rmSync(root, { recursive: true, force: true })
})

/** A temp root (`<os tmp>/<prefix>*`) removed when the harness process exits, unless released first. */
export function liveRoot(prefix: string): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  liveRoots.add(root)
  return root
}

/** Removes a root made by `liveRoot`, or with `keep` leaves it on disk. */
export function releaseRoot(root: string, keep = false): void {
  liveRoots.delete(root)
  if (!keep) fs.rmSync(root, { recursive: true, force: true })
}

export interface Sandbox {
  root: string
  home: string
  project: string
  xdgData: string
  configDir: string
  /** opencode's log files as far as they concern this scenario (on a shared host: what was written since it began). */
  logs(): string
  /** The environment of opencode (server 1 in serve mode). */
  env: NodeJS.ProcessEnv
  /**
   * The environment of serve-mode server `server` (1-based): the same as `env` but for the fake model's base URL,
   * which tells the fake which server asked.
   */
  envFor(server: number): NodeJS.ProcessEnv
  /** Replaces {{project}}, {{home}}, {{root}} and {{web}} in every string inside `value`. */
  expand<T>(value: T): T
}

export interface SandboxOptions {
  repoRoot: string
  llmUrl: string
  /** The fake model's base URL for serve-mode server N (default: `llmUrl` for every server). */
  llmUrlFor?: (server: number) => string
  hostVersion: string
  /** The base URL of the scenario's `web` pages (`{{web}}`), when it has any. */
  webUrl?: string
  /** The shared host the scenario runs on, when it does not start opencode itself. */
  host?: HostHome
}

/** What a sandbox needs of a shared host: its HOME, its environment and its logs from a point on. */
export interface HostHome {
  home: string
  xdgData: string
  configDir: string
  env: NodeJS.ProcessEnv
  /** Log files and stderr written from now on, read when the returned function is called. */
  logsFromNow(): () => string
}

const DEFAULT_PLUGIN_PATH: Record<Scenario["install"], string> = {
  file: "src/server.ts",
  package: ".",
  "single-file": "dist/forgecharts.js",
}

/** Variables passed through from the caller; everything else is set explicitly. */
const PASS_THROUGH = ["PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM"]

/**
 * The plugin's test-only waits, lowered for every opencode the harness starts (a scenario's `env` may set them
 * otherwise): the goal loop's debounce and the background restore's delay after start-up. Production values: 2 s and
 * 5 s. (The look for work left by a driver that exited runs every 3 s in production: a scenario need not wait less.)
 */
export const HARNESS_TIMINGS: Readonly<Record<string, string>> = {
  FORGE_TEST_GOAL_DEBOUNCE_MS: "200",
  FORGE_TEST_RESTORE_DELAY_MS: "200",
}

/** Where one opencode process keeps its HOME, XDG dirs, temp and runtime dirs, all under `root`. */
export interface HomeDirs {
  root: string
  home: string
  xdgConfig: string
  xdgData: string
  configDir: string
  tmp: string
}

export function homeDirs(root: string): HomeDirs {
  const home = path.join(root, "home")
  const xdgConfig = path.join(home, ".config")
  return { root, home, xdgConfig, xdgData: path.join(home, ".local", "share"), configDir: path.join(xdgConfig, "opencode"), tmp: path.join(root, "tmp") }
}

/** Creates the temp and runtime dirs of `dirs` and seeds its global config dir. */
export function prepareHome(dirs: HomeDirs, hostVersion: string): void {
  fs.mkdirSync(path.join(dirs.root, "runtime"), { mode: 0o700 })
  fs.mkdirSync(dirs.tmp, { mode: 0o700 })
  seedConfigDir(dirs.configDir, hostVersion)
}

/**
 * The environment of an opencode process living in `dirs`: the allow-list, HOME and every XDG dir, the temp dir
 * (opencode unpacks its native libraries there on every start and never removes them, ~11 MB a start, and the
 * plugin keeps its job logs there: inside the root, both go with it), opencode's network features off, the
 * harness's timings, then `extra`.
 */
export function opencodeEnvironment(dirs: HomeDirs, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {}
  for (const key of PASS_THROUGH) if (process.env[key] !== undefined) base[key] = process.env[key]
  return {
    ...base,
    TMPDIR: dirs.tmp,
    TMP: dirs.tmp,
    TEMP: dirs.tmp,
    HOME: dirs.home,
    USERPROFILE: dirs.home,
    XDG_CONFIG_HOME: dirs.xdgConfig,
    XDG_DATA_HOME: dirs.xdgData,
    XDG_CACHE_HOME: path.join(dirs.home, ".cache"),
    XDG_STATE_HOME: path.join(dirs.home, ".local", "state"),
    XDG_RUNTIME_DIR: path.join(dirs.root, "runtime"),
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_SHARE: "1",
    OPENCODE_DISABLE_CLAUDE_CODE: "1",
    OPENCODE_DISABLE_EXTERNAL_SKILLS: "1",
    OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
    GIT_CONFIG_NOSYSTEM: "1",
    ...HARNESS_TIMINGS,
    ...extra,
  }
}

/** Every file of opencode's log dir under `xdgData`, in name order, each behind a header. */
export function readLogDir(xdgData: string, from: ReadonlyMap<string, number> = new Map()): string {
  const dir = path.join(xdgData, "opencode", "log")
  if (!fs.existsSync(dir)) return ""
  return fs
    .readdirSync(dir)
    .sort()
    .map((f) => {
      const bytes = fs.readFileSync(path.join(dir, f))
      // A file shorter than where this scenario began was started anew (rotated): all of it is this scenario's.
      const start = (from.get(f) ?? 0) <= bytes.length ? (from.get(f) ?? 0) : 0
      return `--- log ${f} ---\n${bytes.subarray(start).toString("utf8")}`
    })
    .join("\n")
}

/** The size of each file of opencode's log dir under `xdgData`: where this scenario's lines begin. */
export function logSizes(xdgData: string): Map<string, number> {
  const dir = path.join(xdgData, "opencode", "log")
  if (!fs.existsSync(dir)) return new Map()
  return new Map(fs.readdirSync(dir).map((f) => [f, fs.statSync(path.join(dir, f)).size]))
}

export function opencodeBinary(repoRoot: string): string {
  const fromEnv = process.env.OPENCODE_BIN
  if (fromEnv) return path.resolve(fromEnv)
  return path.join(repoRoot, "node_modules", `opencode-${process.platform}-${process.arch}`, "bin", "opencode")
}

/** The installed opencode version; config dirs must be seeded with exactly this @opencode-ai/plugin version. */
export function opencodeVersion(repoRoot: string): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "node_modules", "opencode-ai", "package.json"), "utf8")) as {
    version: string
  }
  return pkg.version
}

/** What opencode's dependency check expects to find, so it never runs npm in this dir. */
export function seedConfigDir(dir: string, hostVersion: string): void {
  const deps = { "@opencode-ai/plugin": hostVersion }
  fs.mkdirSync(path.join(dir, "node_modules"), { recursive: true })
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ dependencies: deps }, null, 2))
  fs.writeFileSync(
    path.join(dir, "package-lock.json"),
    JSON.stringify({ lockfileVersion: 3, requires: true, packages: { "": { dependencies: deps } } }, null, 2),
  )
  // opencode's own list (it keeps a .gitignore it finds), plus the config a shared host's scenario writes here.
  const ignore = path.join(dir, ".gitignore")
  if (!fs.existsSync(ignore)) fs.writeFileSync(ignore, "node_modules\npackage.json\npackage-lock.json\nbun.lock\n.gitignore\nopencode.json\n")
}

/** Resolves the plugin location for the scenario's install kind; throws a clear error when it does not exist. */
export function resolvePluginPath(scenario: Scenario, repoRoot: string): string {
  const given = scenario.pluginPath ?? DEFAULT_PLUGIN_PATH[scenario.install]
  const abs = path.resolve(repoRoot, given)
  if (!fs.existsSync(abs)) {
    const hint = scenario.pluginPath === undefined && scenario.install !== "file" ? " (run `npm run build` first)" : ""
    throw new Error(`plugin for install "${scenario.install}" not found at ${abs}${hint}`)
  }
  if (scenario.install === "package" && !fs.existsSync(path.join(abs, "package.json")))
    throw new Error(`install "package" needs a folder with a package.json, got ${abs}`)
  if (scenario.install !== "package" && !fs.statSync(abs).isFile()) throw new Error(`install "${scenario.install}" needs a file, got the folder ${abs}`)
  return abs
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v)
}

/** Deep merge where objects merge key by key and anything else (arrays included) is replaced. */
export function deepMerge(base: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base }
  for (const [key, value] of Object.entries(extra)) {
    const prev = out[key]
    out[key] = isPlainObject(prev) && isPlainObject(value) ? deepMerge(prev, value) : value
  }
  return out
}

/** The fake provider's default model (the key under `provider.fake.models`); a scenario may declare more. */
export const FAKE_MODEL_ID = "fake-model"

export function buildConfig(scenario: Scenario, llmUrl: string, pluginPath: string): Record<string, unknown> {
  const pluginEntries: unknown[] = []
  if (scenario.install !== "single-file") {
    const spec = `file://${pluginPath}`
    pluginEntries.push(scenario.pluginOptions ? [spec, scenario.pluginOptions] : spec)
  }
  const base: Record<string, unknown> = {
    $schema: "https://opencode.ai/config.json",
    autoupdate: false,
    share: "disabled",
    model: `fake/${FAKE_MODEL_ID}`,
    small_model: `fake/${FAKE_MODEL_ID}`,
    provider: {
      fake: {
        npm: "@ai-sdk/openai-compatible",
        name: "Fake",
        options: { baseURL: llmUrl, apiKey: "e2e" },
        models: { [FAKE_MODEL_ID]: { name: "Fake", tool_call: true, limit: { context: 100_000, output: 4_096 } } },
      },
    },
    permission: { "*": "allow" },
  }
  const { plugin: extraPlugins, ...rest } = scenario.config
  const merged = deepMerge(base, rest)
  merged.plugin = [...pluginEntries, ...(Array.isArray(extraPlugins) ? extraPlugins : extraPlugins === undefined ? [] : [extraPlugins])]
  return merged
}

function expandString(s: string, vars: Record<string, string>): string {
  return s.replace(/\{\{(project|home|root|web)\}\}/g, (_, name: string) => vars[name] ?? "")
}

function expandDeep(value: unknown, vars: Record<string, string>): unknown {
  if (typeof value === "string") return expandString(value, vars)
  if (Array.isArray(value)) return value.map((v) => expandDeep(v, vars))
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandDeep(v, vars)]))
  return value
}

function git(project: string, env: NodeJS.ProcessEnv, args: string[]): void {
  execFileSync("git", ["-c", "user.name=e2e", "-c", "user.email=e2e@localhost", "-c", "commit.gpgsign=false", ...args], {
    cwd: project,
    env,
    stdio: "pipe",
  })
}

export function createSandbox(scenario: Scenario, options: SandboxOptions): Sandbox {
  const root = liveRoot("forge-e2e-")
  try {
    const host = options.host
    const own = homeDirs(root)
    const { home, xdgData, configDir } = host ?? own
    const project = path.join(root, "project")
    fs.mkdirSync(project, { recursive: true })
    const vars: Record<string, string> = { project, home, root, ...(options.webUrl === undefined ? {} : { web: options.webUrl }) }
    const expand = <T>(value: T): T => expandDeep(value, vars) as T

    const pluginPath = resolvePluginPath(scenario, options.repoRoot)
    const configFor = (server: number) => JSON.stringify(expand(buildConfig(scenario, options.llmUrlFor?.(server) ?? options.llmUrl, pluginPath)))
    const envFor = (server: number): NodeJS.ProcessEnv =>
      host ? host.env : opencodeEnvironment(own, { OPENCODE_CONFIG_CONTENT: configFor(server), ...expand(scenario.env) })
    const env = envFor(1)
    if (!host) prepareHome(own, options.hostVersion)

    for (const [rel, content] of Object.entries(scenario.workspace.files)) {
      const file = path.join(project, rel)
      fs.mkdirSync(path.dirname(file), { recursive: true })
      fs.writeFileSync(file, expand(content))
    }
    if (scenario.workspace.git) {
      git(project, env, ["init", "-q", "-b", "main"])
      git(project, env, ["add", "-A"])
      // The root's name makes the first commit, and so opencode's project id, this scenario's own on a shared host.
      git(project, env, ["commit", "-q", "--allow-empty", "-m", "initial", "-m", `e2e ${path.basename(root)}`])
    }

    // The plugin creates <project>/.opencode/ (plans, db); opencode treats it as a config dir on the next
    // start, so it is seeded up front like the global one.
    seedConfigDir(path.join(project, ".opencode"), options.hostVersion)
    // On a shared host the project's own config dir carries the scenario's config: opencode reads it for this
    // directory only (one server, so no per-server model URL).
    if (host) fs.writeFileSync(path.join(project, ".opencode", "opencode.json"), configFor(1))
    if (scenario.install === "single-file") {
      const pluginDir = path.join(configDir, "plugin")
      fs.mkdirSync(pluginDir, { recursive: true })
      fs.copyFileSync(pluginPath, path.join(pluginDir, path.basename(pluginPath)))
    }
    const logs = host ? host.logsFromNow() : () => readLogDir(xdgData)
    return { root, home, project, xdgData, configDir, logs, env, envFor, expand }
  } catch (err) {
    releaseRoot(root)
    throw err
  }
}

/** Removes the temp root, or with `keep` leaves it on disk for inspection. */
export function releaseSandbox(sandbox: Sandbox, keep = false): void {
  releaseRoot(sandbox.root, keep)
}
