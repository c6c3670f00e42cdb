import { existsSync, readFileSync, statSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { type Node, type ParseError, getNodeValue, parseTree, printParseErrorCode } from "jsonc-parser"
import * as z from "zod"
import { parseForgeOptions } from "../services/config/forge.options"
import type { DoctorCheck } from "./cli.doctor.check"

// doctor's "config" check: whether opencode is told to load Forge here — an entry of the `plugin` array of the
// workspace's or the user's opencode config (JSONC, read as opencode reads it), or the single-file install in a plugin
// folder — and whether the options given to it are Forge's. A damaged config fails (opencode does not start with it).

const CONFIG_NAMES = ["opencode.jsonc", "opencode.json"]
const PLUGIN_FOLDERS = ["plugin", "plugins"]
const SINGLE_FILE = "forgecharts.js"
/** The package name, bare or with a version or range (`forgecharts@0.1.0`). */
const PACKAGE_SPEC = /^forgecharts(@.+)?$/

/** The user's opencode config folder: a set XDG_CONFIG_HOME, else ~/.config (as opencode finds it). */
export function userConfigDir(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  return path.join(env.XDG_CONFIG_HOME || path.join(home, ".config"), "opencode")
}

/** One `plugin` entry as written: a spec, or a [spec, options] pair. */
const pluginEntrySchema = z.union([z.string(), z.tuple([z.string()], z.unknown())])
const pluginListSchema = z.array(pluginEntrySchema)
const packageJsonSchema = z.looseObject({ name: z.string() })

interface Finding {
  verdict: DoctorCheck["verdict"]
  text: string
}

export function configCheck(workspace: string, env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): DoctorCheck {
  const userDir = userConfigDir(env, home)
  const dirs = [userDir, workspace, path.join(workspace, ".opencode")]
  const findings: Finding[] = []
  const listed: string[] = []
  for (const file of dirs.flatMap((dir) => CONFIG_NAMES.map((name) => path.join(dir, name)))) {
    if (!isFile(file)) continue
    const read = readConfig(file, home)
    findings.push(...read.findings)
    listed.push(...read.listed)
  }
  for (const dir of [userDir, path.join(workspace, ".opencode")]) {
    for (const folder of PLUGIN_FOLDERS) {
      const file = path.join(dir, folder, SINGLE_FILE)
      if (isFile(file)) listed.push(`${file} (the single-file install)`)
    }
  }
  if (listed.length === 0)
    findings.push({
      verdict: "warn",
      text: `no opencode config here lists forgecharts, so opencode does not load Forge: add "plugin": ["forgecharts"] to ${path.join(userDir, "opencode.json")} (every workspace) or ${path.join(workspace, "opencode.json")} (this one), or copy dist/forgecharts.js to ${path.join(userDir, "plugin", SINGLE_FILE)}`,
    })
  const verdict = findings.some((f) => f.verdict === "fail") ? "fail" : findings.some((f) => f.verdict === "warn") ? "warn" : "ok"
  const said = listed.length === 0 ? [] : [`forgecharts is loaded from ${listed.join(", ")}`]
  return { check: "config", verdict, detail: [...said, ...findings.map((f) => f.text)].join("; ") }
}

/** One config file: where it lists Forge, and what is wrong with it. */
function readConfig(file: string, home: string): { listed: string[]; findings: Finding[] } {
  let text: string
  try {
    text = readFileSync(file, "utf8")
  } catch (error) {
    return { listed: [], findings: [{ verdict: "fail", text: `${file} cannot be read: ${error instanceof Error ? error.message : String(error)}` }] }
  }
  const errors: ParseError[] = []
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false })
  const first = errors[0]
  if (first !== undefined || root === undefined) {
    const where = first === undefined ? "" : ` at line ${lineColumn(text, first.offset)}: ${printParseErrorCode(first.error)}`
    return { listed: [], findings: [{ verdict: "fail", text: `${file} cannot be read${where}; opencode does not start until it is fixed` }] }
  }
  const plugin = pluginNode(root)
  if (plugin === undefined) return { listed: [], findings: [] }
  const entries = pluginListSchema.safeParse(getNodeValue(plugin))
  if (!entries.success)
    return {
      listed: [],
      findings: [
        { verdict: "fail", text: `${file} line ${lineColumn(text, plugin.offset)}: "plugin" must be a list of plugin specs or [spec, options] pairs` },
      ],
    }
  const listed: string[] = []
  const findings: Finding[] = []
  for (const entry of entries.data) {
    const [spec, options] = typeof entry === "string" ? [entry, undefined] : [entry[0], entry[1]]
    const match = forgeSpec(spec, path.dirname(file), home)
    if (match === "no") continue
    if (match !== "yes") {
      findings.push({ verdict: "warn", text: `${file}: the plugin entry "${spec}" ${match}` })
      continue
    }
    listed.push(`${file} ("${spec}")`)
    if (typeof entry === "string") continue
    const { warnings } = parseForgeOptions(options)
    if (warnings.length > 0)
      findings.push({ verdict: "warn", text: `${file}: the options given to "${spec}": ${warnings.join("; ")} (see docs/configuration.md)` })
  }
  return { listed, findings }
}

/** The top-level `plugin` member's value. */
function pluginNode(root: Node): Node | undefined {
  if (root.type !== "object") return undefined
  const member = root.children?.find((property) => property.children?.[0]?.value === "plugin")
  return member?.children?.[1]
}

/**
 * Whether a plugin spec names Forge: the package name (with a version or not), or a path or file URL (relative to the
 * config's folder) to the package's folder or one of its files, or to a `forgecharts.js`. A path that mentions
 * forgecharts but leads to nothing of it gets why, for a warning.
 */
function forgeSpec(spec: string, base: string, home: string): "yes" | "no" | string {
  if (PACKAGE_SPEC.test(spec)) return "yes"
  const target = specPath(spec, base, home)
  if (target === undefined) return "no"
  if (!existsSync(target)) return spec.includes("forgecharts") ? `names ${target}, which does not exist` : "no"
  if (path.basename(target) === SINGLE_FILE || packageNameAt(target) === "forgecharts") return "yes"
  return spec.includes("forgecharts") ? `names ${target}, which is not inside the forgecharts package` : "no"
}

function specPath(spec: string, base: string, home: string): string | undefined {
  if (spec.startsWith("file:")) {
    try {
      return fileURLToPath(spec)
    } catch {
      return undefined
    }
  }
  if (spec === "~" || spec.startsWith("~/")) return path.join(home, spec.slice(1))
  if (path.isAbsolute(spec) || spec.startsWith("./") || spec.startsWith("../")) return path.resolve(base, spec)
  return undefined
}

/** The name of the nearest package.json at or above `target`, or undefined. */
function packageNameAt(target: string): string | undefined {
  let dir = isFile(target) ? path.dirname(target) : target
  for (;;) {
    const file = path.join(dir, "package.json")
    if (isFile(file)) {
      try {
        return packageJsonSchema.parse(JSON.parse(readFileSync(file, "utf8"))).name
      } catch {
        return undefined
      }
    }
    const parent = path.dirname(dir)
    if (parent === dir) return undefined
    dir = parent
  }
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile()
  } catch {
    return false
  }
}

/** 1-based "line:column" of an offset, as editors show it. */
function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset)
  return `${before.split("\n").length}:${offset - before.lastIndexOf("\n")}`
}
