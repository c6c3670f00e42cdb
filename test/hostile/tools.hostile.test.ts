import path from "node:path"
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { type HostileHost, longestStall, openHostileHost, treeHash } from "./hostile.harness"

// Every Forge tool, as opencode hands it the model's raw arguments, given empty, huge, wrong-type, NUL,
// deep-nested, catastrophic-pattern and outside-path input. For each call: a clear error (in Forge's words, naming
// the argument where an argument is wrong) or a correct result; an event loop that kept turning (a 2 s bound only
// a freeze breaks); and not one byte changed in the folder beside the workspace.

const HUGE = 10 * 1024 * 1024
const CATASTROPHIC = "(a+)+$"
/** An object nested this deep: a recursive parse, print or copy of it overflows the stack. */
const DEPTH = 100_000
const FREEZE_MS = 2_000

const PLAN = "# Hostile plan\n\n## Tasks\n- [ ] 1. One task\n\n## Acceptance Criteria\n- It works\n"

/** What a raw runtime error looks like: a message of the engine or of Node, not of Forge. */
const RAW_ERROR =
  /Maximum call stack|Invalid regular expression|Regular expression too large|\bE[A-Z]{3,}: |\[ERR_[A-Z_]+\]|^(TypeError|RangeError|ReferenceError|SyntaxError)\b|Cannot read propert|is not a function|\[object Object\]/

interface ToolSpec {
  /** The tool's main text argument (the one made huge, NUL, nested...). */
  text?: string
  /** Its path argument, pointed outside the workspace. */
  path?: string
  /** Its pattern argument, given a catastrophic pattern. */
  pattern?: string
  /** Arguments that make a valid call, which each case changes in one place. */
  base: Record<string, unknown>
  /** A NUL in the text argument must be refused (a command line cannot carry one: the rest would be dropped). */
  refusesNul?: boolean
}

const SPECS: Record<string, ToolSpec> = {
  forge_shell: {
    text: "command",
    path: "cwd",
    pattern: "success_pattern",
    base: { command: "printf 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!'" },
    refusesNul: true,
  },
  forge_jobs: { text: "jobId", base: { action: "poll", jobId: "job_none" } },
  plan_write: { text: "content", base: { content: PLAN } },
  plan_read: { pattern: "pattern", path: "path", base: {} },
  plan_edit: { text: "newString", base: { oldString: "", newString: PLAN } },
  plan_approve: { base: {} },
  plan_tick: { base: { task: 1 } },
  plan_close: { base: { checks: [{ criterion: "It works", pass: true, evidence: "seen" }] } },
  plan_discard: { text: "reason", path: "supersede", base: { reason: "hostile" } },
  goal_write: { text: "objective", base: { objective: "make it work", success: ["it works"] } },
  goal_check: { base: {} },
  goal_complete: { base: { attestations: [{ criterion: "it works", evidence: "seen" }] } },
  goal_pause: { text: "blocker", base: {} },
  goal_resume: { base: {} },
  goal_discard: { text: "reason", base: {} },
  crew_begin: { text: "objective", path: "lineage", base: { objective: "build it", subtasks: [{ title: "one" }] } },
  crew_close: { text: "reason", base: { abandon: true, reason: "hostile" } },
  loop_start: { text: "title", base: { title: "hostile loop" } },
  loop_status: { text: "name", base: {} },
  loop_cancel: { text: "reason", base: {} },
  loop_handoff: { text: "notes", base: { notes: "hostile" } },
  loop_adjust: { text: "rationale", base: { sections: [], rationale: "hostile" } },
  section_read: { base: {} },
  loop_complete: { text: "notes", base: { outcome: "completed", steps: ["wrapped up"], notes: "hostile" } },
  review_write: { text: "description", path: "file", base: { file: "a.txt", line: 1, severity: "warning", description: "hostile" } },
  review_read: { text: "loopName", pattern: "pattern", base: {} },
  review_delete: { path: "file", base: { file: "a.txt", line: 1 } },
  forge_read: { path: "path", base: { path: "a.txt" } },
  forge_write: { text: "content", path: "path", base: { path: "new.txt", content: "new\n" } },
  forge_patch: { path: "path", base: { path: "a.txt", patches: [{ operation: "replace", search: "beta", content: "BETA" }] } },
  forge_remove: { path: "path", base: { path: "gone.txt" } },
  forge_undo: { path: "path", base: { path: "a.txt" } },
  forge_rewind: { text: "message", base: {} },
  forge_search: { path: "path", pattern: "regex", base: { path: ".", regex: "alpha" } },
  forge_fetch: { text: "url", base: { url: "http://127.0.0.1:9/" } },
  attempt_completion: { text: "result", base: { result: "done" } },
}

function nested(depth: number): unknown {
  let value: unknown = "leaf"
  for (let i = 0; i < depth; i++) value = { a: value }
  return value
}

interface Case {
  name: string
  args: (host: HostileHost) => unknown
  /** What an error must say, beyond being clear (names the argument, for one). */
  error?: RegExp
  /** Only an error is right (the call must not go through). */
  mustRefuse?: boolean
}

function casesOf(tool: string, spec: ToolSpec): Case[] {
  const { text, path: pathArg, pattern, base } = spec
  const resolveBase = (host: HostileHost) => {
    const out: Record<string, unknown> = { ...base }
    // File tools take absolute paths: the base's relative ones are the workspace's.
    if (pathArg !== undefined && typeof out[pathArg] === "string" && tool.startsWith("forge_") && tool !== "forge_shell") {
      out[pathArg] = path.join(host.workspace, out[pathArg] as string)
    }
    return out
  }
  const cases: Case[] = [{ name: "empty arguments", args: () => ({}) }]
  if (text !== undefined) {
    cases.push(
      {
        name: `wrong type (a number as ${text})`,
        args: (h) => ({ ...resolveBase(h), [text]: 12345 }),
        error: new RegExp(`argument "${text}" must be a string \\(got number\\)`),
        mustRefuse: true,
      },
      {
        name: `huge ${text} (10 MB)`,
        args: (h) => ({ ...resolveBase(h), [text]: "x".repeat(HUGE) }),
        error: new RegExp(`argument "${text}" must be at most \\d+ characters long \\(got ${HUGE} characters\\)`),
        mustRefuse: true,
      },
      spec.refusesNul
        ? {
            name: `NUL byte in ${text}`,
            args: (h) => ({ ...resolveBase(h), [text]: "echo before\u0000after" }),
            error: new RegExp(`argument "${text}": holds a NUL byte`),
            mustRefuse: true,
          }
        : { name: `NUL byte in ${text}`, args: (h) => ({ ...resolveBase(h), [text]: "before\u0000after" }) },
      {
        name: `deep-nested ${text}`,
        args: (h) => ({ ...resolveBase(h), [text]: nested(DEPTH) }),
        error: new RegExp(`argument "${text}" must be a string \\(got object\\)`),
        mustRefuse: true,
      },
      { name: `catastrophic-pattern text in ${text}`, args: (h) => ({ ...resolveBase(h), [text]: CATASTROPHIC }) },
    )
  } else {
    cases.push(
      { name: "wrong type (arguments as an array)", args: () => ["x"], error: /arguments must be an object \(got array\)/, mustRefuse: true },
      { name: "deep-nested unknown argument", args: (h) => ({ ...resolveBase(h), extra: nested(DEPTH) }), error: /unknown argument "extra"/, mustRefuse: true },
      {
        name: "huge unknown argument (10 MB)",
        args: (h) => ({ ...resolveBase(h), extra: "x".repeat(HUGE) }),
        error: /unknown argument "extra"/,
        mustRefuse: true,
      },
    )
  }
  if (pattern !== undefined) {
    cases.push({ name: `catastrophic ${pattern}`, args: (h) => ({ ...resolveBase(h), [pattern]: CATASTROPHIC }) })
    cases.push({
      name: `huge ${pattern} (10 MB)`,
      args: (h) => ({ ...resolveBase(h), [pattern]: "a".repeat(HUGE) }),
      mustRefuse: true,
      error: new RegExp(`"${pattern}"`),
    })
  }
  if (pathArg !== undefined) {
    cases.push(
      { name: `${pathArg} outside the workspace`, args: (h) => ({ ...resolveBase(h), [pathArg]: path.join(h.sibling, "secret.txt") }) },
      { name: `${pathArg} climbing out with ..`, args: (h) => ({ ...resolveBase(h), [pathArg]: path.join(h.workspace, "..", "sibling", "deep") }) },
      { name: `NUL byte in ${pathArg}`, args: (h) => ({ ...resolveBase(h), [pathArg]: path.join(h.workspace, "a\u0000.txt") }), mustRefuse: true },
      {
        name: `huge ${pathArg} (10 MB)`,
        args: (h) => ({ ...resolveBase(h), [pathArg]: `/${"p".repeat(HUGE)}` }),
        mustRefuse: true,
        error: new RegExp(`"?${pathArg}"?`),
      },
    )
  }
  return cases
}

describe("every Forge tool, hostile input", () => {
  let host: HostileHost
  let siblingBefore: string
  let session = 0

  beforeAll(async () => {
    host = await openHostileHost()
  }, 60_000)
  afterAll(async () => host.close())
  beforeEach(() => {
    siblingBefore = treeHash(host.sibling)
  })
  afterEach(() => {
    expect(treeHash(host.sibling), "a byte outside the workspace changed").toBe(siblingBefore)
  })

  it("covers every tool the plugin registers", () => {
    expect(Object.keys(host.tools).sort()).toEqual(Object.keys(SPECS).sort())
  })

  for (const [tool, spec] of Object.entries(SPECS)) {
    describe(tool, () => {
      for (const hostile of casesOf(tool, spec)) {
        it(hostile.name, async () => {
          const args = hostile.args(host)
          const { stallMs, outcome } = await longestStall(() => host.call(tool, args, `ses_hostile_${++session}`))
          expect(stallMs, `the event loop stood still for ${Math.round(stallMs)} ms`).toBeLessThan(FREEZE_MS)
          if (outcome.status === "fulfilled") {
            expect(hostile.mustRefuse ?? false, `the call went through: ${outcome.value.slice(0, 300)}`).toBe(false)
            expect(outcome.value).not.toMatch(RAW_ERROR)
            return
          }
          const message = outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason)
          expect(message.length, `an error of ${message.length} characters: ${message.slice(0, 200)}`).toBeLessThan(4_000)
          expect(message).not.toMatch(RAW_ERROR)
          if (hostile.error !== undefined) expect(message).toMatch(hostile.error)
        })
      }
    })
  }
})
