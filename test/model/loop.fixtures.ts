import type { LoopHandoff } from "../../machines/loop/loop.gates"
import type { LoopEvent, LoopInput } from "../../machines/loop/loop.machine"
import { HOST, LOOP, MODEL_DRIVER, MODEL_WORKTREE, PLAN_PATH, TITLE } from "./loop.world"

// What the loop's model tests share: the plan's sections as the loop reads them, a model input, the coder's records and
// the restart event. Kept apart from loop.world.ts, which names the world itself.

/** When every model loop starts. */
export const T0 = Date.parse("2026-11-30T03:00:00.000Z")
/** The budget the main config explores in full. */
export const MAX_PASSES = 6

export const SECTIONS: LoopInput["sections"] = [
  { title: "Parser", content: "Write a recursive-descent parser for `+ - * /` and parentheses in src/parser.ts.\n\n### Notes\nKeep the lexer as it is." },
  { title: "Printer", content: "Print a parsed expression back with minimal parentheses in src/printer.ts." },
]

/** A model input born from the approved plan; `overrides` set what a config is about. */
export const inputFor = (overrides: Partial<LoopInput>): LoopInput => ({
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
