import type { LoopHandoff, LoopPhase } from "../../machines/loop/loop.gates"
import { newContext } from "../../machines/loop/loop.birth"
import type { LoopOpenFinding } from "../../machines/loop/loop.findings"
import type { LoopContext, LoopEvent, LoopOutcome, LoopResumeInput, LoopStartInput } from "../../machines/loop/loop.machine"
import { HOST, LOOP, MODEL_DRIVER, MODEL_WORKTREE, PLAN_PATH, TITLE, passSession } from "./loop.world"

// What the loop's model world is made of: the plan's sections as the loop reads them, a model input, the coder's
// records and the restart event. Kept apart from loop.world.ts, which names the world itself.

/** When every model loop starts. */
export const T0 = Date.parse("2026-11-30T03:00:00.000Z")
/** The budget the main config explores in full. */
export const MAX_PASSES = 6

export const SECTIONS: LoopStartInput["sections"] = [
  { title: "Parser", content: "Write a recursive-descent parser for `+ - * /` and parentheses in src/parser.ts.\n\n### Notes\nKeep the lexer as it is." },
  { title: "Printer", content: "Print a parsed expression back with minimal parentheses in src/printer.ts." },
]

/** A model input born from the approved plan; `overrides` set what a config is about. */
export const inputFor = (overrides: Partial<LoopStartInput>): LoopStartInput => ({
  loopName: LOOP,
  title: TITLE,
  hostSession: HOST,
  planPath: PLAN_PATH,
  planStatus: "approved",
  askedFrom: null,
  worktree: MODEL_WORKTREE,
  sections: SECTIONS,
  maxIterations: MAX_PASSES,
  sandbox: { mode: "bwrap", network: false, problem: null },
  startedAt: T0,
  driver: MODEL_DRIVER,
  ...overrides,
})

/** A coder's record: one change, a deviation, one passing check, notes. */
export const CODED: Extract<LoopHandoff, { role: "coder" }> = {
  role: "coder",
  changes: [{ summary: "Parser for + - * / and parentheses", reason: "the section asks for it" }],
  deviations: [{ planItem: "Keep the lexer as it is", actual: "the lexer now emits a token for unary minus", reason: "the parser needs it" }],
  verification: [{ command: "npm test", cwd: "", outcome: "pass", changedAfter: false }],
  notes: "Error messages name the offending token.",
}
/** Malformed: a coder's record without any verification. */
export const UNVERIFIED: LoopHandoff = { ...CODED, verification: [] }

/** The SUT's next process takes the loop over (the one before it was closed). */
export const restored: LoopEvent = {
  type: "loop.restored",
  driver: { me: MODEL_DRIVER, claim: { holder: "(the closed process)", until: 0 }, holderAlive: false, now: 0 },
}

/** When a model loop is restarted (loop_status {restart}). */
export const T_RESTART = T0 + 7_200_000

/** loop_status {restart} from the process that drives the loop: with force, or without (refused while it runs). */
export const restartOf = (force: boolean): LoopEvent => ({
  type: "loop.restart",
  force,
  driver: { me: MODEL_DRIVER, claim: { holder: MODEL_DRIVER, until: Number.MAX_SAFE_INTEGER }, holderAlive: true, now: T_RESTART },
  at: T_RESTART,
})

/** The bug an auditor recorded before its loop ended: still open when the loop is restarted. */
export const OPEN_BUG = {
  section: 0,
  file: "src/parser.ts",
  line: 12,
  severity: "bug",
  description: "unary minus binds looser than multiplication",
  scenario: null,
} as const

/**
 * A loop that ended, as its record holds it, restarted: `ended` its final state, `phase` the phase it ended in,
 * `done` the sections finished, `passes` the passes it had spent, each in a session of its own.
 */
export function resumeFor(
  name: (typeof RESUMES)[number],
  { ended, phase, done, passes, reason, findings = [], sandboxProblem = null }: ResumeCase,
): { name: string; input: LoopResumeInput } {
  const born = newContext(inputFor({ startedAt: T0 + 100 + RESUMES.indexOf(name) }))
  const sessions = Array.from({ length: passes }, (_, i) => passSession(i + 1))
  const context: LoopContext = {
    ...born,
    sections: born.sections.map((s, i) => (i < done ? { ...s, status: "done" } : s)),
    sectionIndex: Math.min(done, born.sections.length - 1),
    sessions,
    iteration: passes,
    phase,
    last: null,
    findings: [...findings],
    reason,
  }
  return { name, input: { resume: { ended, context }, sandboxProblem, driver: MODEL_DRIVER, at: T_RESTART } }
}

interface ResumeCase {
  ended: LoopOutcome
  phase: LoopPhase
  done: number
  passes: number
  reason: string
  findings?: readonly LoopOpenFinding[]
  sandboxProblem?: string | null
}

/** The restarted loops the model walks (each told apart by its start time, its index here). */
export const RESUMES = [
  "stalled in a section audit, a recorded bug open",
  "out of passes in the second section's coding",
  "cancelled in the final audit",
  "stalled in the post-action",
  "errored in the final audit's fix",
  "completed: history, refused",
  "its sandbox cannot start here: refused",
] as const
