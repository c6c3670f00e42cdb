// Reads and validates scenario files. Every problem is reported with the file and the key path it concerns,
// so a typo in a scenario never turns into a silently different test.
import fs from "node:fs"
import path from "node:path"
import type { z } from "zod"
import { scenarioSchema, type Scenario } from "./scenario.schema"

/** A scenario file that cannot be used: missing, not JSON, or not matching the schema. */
export class ScenarioFileError extends Error {
  override readonly name = "ScenarioFileError"
  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(`${source}: invalid scenario\n${problems.map((p) => `  - ${p}`).join("\n")}`)
  }
}

type Issue = z.core.$ZodIssue

/** `turns[0].prompt`, `workspace.files["a b.txt"]`; the root is `(root)`. */
export function formatPath(segments: readonly PropertyKey[]): string {
  let out = ""
  for (const seg of segments) {
    if (typeof seg === "number") out += `[${seg}]`
    else if (typeof seg === "string" && /^[A-Za-z_$][\w$]*$/.test(seg)) out += out ? `.${seg}` : seg
    else out += `[${JSON.stringify(String(seg))}]`
  }
  return out || "(root)"
}

/** For a union, keep the branch that matched the value's type, so a typo inside it is reported plainly. */
function unionBranch(branches: Issue[][]): Issue[] {
  const typed = branches.find((issues) => !issues.some((i) => i.code === "invalid_type" && i.path.length === 0))
  return typed ?? branches[0] ?? []
}

function describeIssues(issues: readonly Issue[], prefix: readonly PropertyKey[] = []): string[] {
  const out: string[] = []
  for (const issue of issues) {
    const at = [...prefix, ...issue.path]
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) out.push(`${formatPath([...at, key])}: unknown key "${key}"`)
    } else if (issue.code === "invalid_union" && issue.errors.length > 0) {
      out.push(...describeIssues(unionBranch(issue.errors), at))
    } else if (issue.code === "invalid_key") {
      out.push(`${formatPath(at)}: invalid key: ${issue.issues.map((i) => i.message).join("; ")}`)
    } else if (issue.code === "invalid_type" && /received undefined$/.test(issue.message)) {
      out.push(`${formatPath(at)}: missing (expected ${issue.expected})`)
    } else {
      out.push(`${formatPath(at)}: ${issue.message}`)
    }
  }
  return out
}

/** Validates an already-parsed value; `source` names it in errors. */
export function parseScenario(value: unknown, source = "scenario"): Scenario {
  const result = scenarioSchema.safeParse(value)
  if (!result.success) throw new ScenarioFileError(source, describeIssues(result.error.issues))
  return result.data
}

/** Reads a scenario file; a relative path is resolved from `cwd` (default: the process's working directory). */
export function loadScenarioFile(file: string, cwd = process.cwd()): { scenario: Scenario; file: string } {
  const abs = path.resolve(cwd, file)
  let text: string
  try {
    text = fs.readFileSync(abs, "utf8")
  } catch (err) {
    throw new ScenarioFileError(abs, [`cannot read the file: ${(err as Error).message}`])
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (err) {
    throw new ScenarioFileError(abs, [`not valid JSON: ${(err as Error).message}`])
  }
  return { scenario: parseScenario(value, abs), file: abs }
}

/** The `*.json` scenario files directly inside `dir`, sorted by name (absolute paths). */
export function scenarioFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".json"))
    .map((e) => path.join(dir, e.name))
    .sort()
}
