// The hermetic world of one scenario: a temp root holding HOME, every XDG dir and the project, config dirs
// seeded so opencode's hidden npm install is a no-op, the plugin installed the way the scenario asks, and an
// environment built from a short allow-list (nothing of the caller's opencode or provider settings leaks in).
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

export interface Sandbox {
  root: string
  home: string
  project: string
  xdgData: string
  configDir: string
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
}

const DEFAULT_PLUGIN_PATH: Record<Scenario["install"], string> = {
  file: "src/server.ts",
  package: ".",
  "single-file": "dist/forgecharts.js",
}

/** Variables passed through from the caller; everything else is set explicitly. */
const PASS_THROUGH = ["PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM"]

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
  const ignore = path.join(dir, ".gitignore")
  if (!fs.existsSync(ignore)) fs.writeFileSync(ignore, "node_modules\npackage.json\npackage-lock.json\nbun.lock\n.gitignore\n")
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
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "forge-e2e-"))
  liveRoots.add(root)
  try {
    const home = path.join(root, "home")
    const project = path.join(root, "project")
    const xdgConfig = path.join(home, ".config")
    const xdgData = path.join(home, ".local", "share")
    const configDir = path.join(xdgConfig, "opencode")
    fs.mkdirSync(project, { recursive: true })
    const vars: Record<string, string> = { project, home, root, ...(options.webUrl === undefined ? {} : { web: options.webUrl }) }
    const expand = <T>(value: T): T => expandDeep(value, vars) as T

    const pluginPath = resolvePluginPath(scenario, options.repoRoot)
    // opencode unpacks its native libraries into the temp dir on every start and never removes them (~11 MB a
    // start), and the plugin keeps its job logs there: inside the root, both go with it.
    const tmp = path.join(root, "tmp")
    const base: NodeJS.ProcessEnv = {}
    for (const key of PASS_THROUGH) if (process.env[key] !== undefined) base[key] = process.env[key]
    const envFor = (server: number): NodeJS.ProcessEnv => ({
      ...base,
      TMPDIR: tmp,
      TMP: tmp,
      TEMP: tmp,
      HOME: home,
      USERPROFILE: home,
      XDG_CONFIG_HOME: xdgConfig,
      XDG_DATA_HOME: xdgData,
      XDG_CACHE_HOME: path.join(home, ".cache"),
      XDG_STATE_HOME: path.join(home, ".local", "state"),
      XDG_RUNTIME_DIR: path.join(root, "runtime"),
      OPENCODE_CONFIG_CONTENT: JSON.stringify(expand(buildConfig(scenario, options.llmUrlFor?.(server) ?? options.llmUrl, pluginPath))),
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
      OPENCODE_DISABLE_SHARE: "1",
      OPENCODE_DISABLE_CLAUDE_CODE: "1",
      OPENCODE_DISABLE_EXTERNAL_SKILLS: "1",
      OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
      GIT_CONFIG_NOSYSTEM: "1",
      ...expand(scenario.env),
    })
    const env = envFor(1)
    fs.mkdirSync(path.join(root, "runtime"), { mode: 0o700 })
    fs.mkdirSync(tmp, { mode: 0o700 })

    for (const [rel, content] of Object.entries(scenario.workspace.files)) {
      const file = path.join(project, rel)
      fs.mkdirSync(path.dirname(file), { recursive: true })
      fs.writeFileSync(file, expand(content))
    }
    if (scenario.workspace.git) {
      git(project, env, ["init", "-q", "-b", "main"])
      git(project, env, ["add", "-A"])
      git(project, env, ["commit", "-q", "--allow-empty", "-m", "initial"])
    }

    // The plugin creates <project>/.opencode/ (plans, db); opencode treats it as a config dir on the next
    // start, so it is seeded up front like the global one.
    seedConfigDir(configDir, options.hostVersion)
    seedConfigDir(path.join(project, ".opencode"), options.hostVersion)
    if (scenario.install === "single-file") {
      const pluginDir = path.join(configDir, "plugin")
      fs.mkdirSync(pluginDir, { recursive: true })
      fs.copyFileSync(pluginPath, path.join(pluginDir, path.basename(pluginPath)))
    }
    return { root, home, project, xdgData, configDir, env, envFor, expand }
  } catch (err) {
    liveRoots.delete(root)
    fs.rmSync(root, { recursive: true, force: true })
    throw err
  }
}

/** Removes the temp root, or with `keep` leaves it on disk for inspection. */
export function releaseSandbox(sandbox: Sandbox, keep = false): void {
  liveRoots.delete(sandbox.root)
  if (!keep) fs.rmSync(sandbox.root, { recursive: true, force: true })
}
