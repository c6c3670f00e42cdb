import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import * as z from "zod"
import type { DoctorCheck } from "./cli.doctor.check"

// doctor's "plugin" check: whether the plugin module loads as opencode loads it. It is imported in a child process
// (its import must not touch the CLI's own state, and a module that hangs or exits is contained there), which says on
// its last line what the module exports.

/** Prefixes the child's answer: a module that prints while it loads cannot be mistaken for it. */
const ANSWER = "forge-doctor-plugin:"

const answerSchema = z.discriminatedUnion("ok", [
  z.strictObject({ ok: z.literal(true), id: z.string().nullable() }),
  z.strictObject({ ok: z.literal(false), problem: z.string() }),
])

// What opencode asks of a plugin module: a default export `{ id, server }` whose `server` is the plugin function, and
// no other export (opencode refuses a module with any).
const CHILD = `
const say = (answer) => process.stdout.write("\\n${ANSWER}" + JSON.stringify(answer) + "\\n", () => process.exit(0))
try {
  const module = await import(process.argv[1])
  const names = Object.keys(module)
  const plugin = module.default
  const others = names.filter((name) => name !== "default")
  if (typeof plugin?.server !== "function")
    say({ ok: false, problem: "its default export has no server function, the plugin function opencode calls (exports: " + (names.join(", ") || "none") + ")" })
  else if (others.length > 0)
    say({ ok: false, problem: "it exports " + others.join(", ") + " besides the default; opencode refuses a plugin module with any other export" })
  else say({ ok: true, id: typeof plugin.id === "string" ? plugin.id : null })
} catch (error) {
  say({ ok: false, problem: "importing it throws: " + (error instanceof Error ? error.message : String(error)) })
}
`

/**
 * The plugin module of the CLI at `cliFile`: `server.js` beside the built CLI (or one folder up, from a chunk of it),
 * `server.ts` beside `cli.ts` in a checkout run from source; null (with where it looked) when there is none.
 */
export function pluginModuleFor(cliFile: string): { file: string | null; looked: string[] } {
  const dir = path.dirname(cliFile)
  const looked = cliFile.endsWith(".ts") ? [path.join(dir, "server.ts")] : [path.join(dir, "server.js"), path.join(dir, "..", "server.js")]
  return { file: looked.find((file) => existsSync(file)) ?? null, looked }
}

/** The check of the plugin module beside this CLI. */
export function pluginCheck(): DoctorCheck {
  const { file, looked } = pluginModuleFor(fileURLToPath(import.meta.url))
  if (file === null)
    return {
      check: "plugin",
      verdict: "fail",
      detail: `no plugin module beside the CLI (looked for ${looked.join(", ")}): reinstall forgecharts, or run npm run build in a checkout`,
    }
  return pluginLoadCheck(file)
}

/** Imports `file` in a child process of this runtime (a checkout's TypeScript loader included) and checks its exports. */
export function pluginLoadCheck(file: string): DoctorCheck {
  const result = spawnSync(process.execPath, [...process.execArgv, "--input-type=module", "--eval", CHILD, pathToFileURL(file).href], {
    encoding: "utf8",
    timeout: 60_000,
  })
  const line = result.stdout
    ?.split("\n")
    .reverse()
    .find((l) => l.startsWith(ANSWER))
  const parsed = line === undefined ? undefined : answerSchema.safeParse(JSON.parse(line.slice(ANSWER.length)))
  if (parsed?.success !== true) {
    const why =
      result.error?.message ?? (result.stderr.trim().split("\n").slice(-3).join(" ") || `the child process exited with ${result.status ?? result.signal}`)
    return { check: "plugin", verdict: "fail", detail: `${file} did not load: ${why}` }
  }
  const answer = parsed.data
  if (!answer.ok) return { check: "plugin", verdict: "fail", detail: `${file}: ${answer.problem}` }
  return {
    check: "plugin",
    verdict: "ok",
    detail: `${file} loads and exports the plugin function opencode calls${answer.id === null ? "" : ` (id "${answer.id}")`}`,
  }
}
