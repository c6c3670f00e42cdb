import path from "node:path"
import type { SnapshotFrom } from "xstate"
import type { LoopHandoff } from "../../machines/loop/loop.gates"
import { type LoopEvent, loopMachine, loopPassOf, loopPhaseOf } from "../../machines/loop/loop.machine"
import type { ModelWorldByState } from "../model.world"
import { CODED, T0, UNVERIFIED, inputFor, restartOf, restored } from "./loop.fixtures"
import {
  BARE,
  BUG,
  BUG_WITH_SUMMARY,
  CLEAN,
  COMPLETE,
  POST_FAILED,
  RESTART_WALK,
  RESUMED,
  RESUMED_STARTS,
  WALKS,
  budgetWalk,
  deleteFinding,
  restartWalk,
} from "./loop.walks"
import {
  BRIEF_FAILED,
  DIRECT_FAIL,
  MODEL_DRIVER,
  MODEL_WORKTREE,
  NEIGHBOUR_DRIVER,
  NUDGE_FAILED,
  OUTER_LOOP,
  OUTER_SESSION,
  STRANGER,
  nextPassSession,
} from "./loop.world"

// The loop's model world: a loop born from an approved plan of two sections (6 passes at most), budget walks, a
// restart walk, loops restarted from their records, and five starts the birth gate refuses (a draft plan, a start
// asked from inside another loop's pass, a plan without any section, a budget too small, a sandbox that cannot start).
// The passes' sessions, their records, their tool calls (only ever asked: `can()`), the user's cancel, restarts and
// the process that takes a loop over are what the world sends.
//
// The world is bounded, so the paths stay few: at most 6 passes (and budget walks, each one run of usual records to
// where its budget runs out); what a phase shows once (its reminders and stall, its ends by cancel, by failure, by a
// session that cannot be opened, a restart while its session opens) is explored on its first visit only, a later pass
// of the phase handing off its usual record; the auditor amends at most once (it drops the pending sections, so the
// first section becomes the last and the final audit comes sooner).

/** When the auditor amends the pending sections. */
const T_ADJUST = T0 + 3_600_000

const configs = [
  { name: "started from the approved plan", input: inputFor({}) },
  // Budgets walked with the usual records to where each runs out (WALKS).
  ...Object.entries(WALKS).map(([at, walk]) => ({
    name: `budget walk: ${walk.name}`,
    input: inputFor({ maxIterations: walk.maxIterations, startedAt: Number(at) }),
  })),
  { name: "restart walk: each phase restarted once as it works, forced", input: inputFor({ maxIterations: 7, startedAt: RESTART_WALK }) },
  ...RESUMED.map(({ name, input }) => ({ name: `restarted from its record: ${name}`, input })),
  { name: "refused: the plan is a draft", input: inputFor({ planStatus: "draft" }) },
  { name: "refused: asked from inside another loop", input: inputFor({ hostSession: OUTER_SESSION, askedFrom: OUTER_LOOP }) },
  { name: "refused: the plan has no section", input: inputFor({ planPath: null, planStatus: null, sections: [] }) },
  { name: "refused: a budget too small for the sections", input: inputFor({ maxIterations: 4 }) },
  {
    name: "refused: the sandbox cannot start here",
    input: inputFor({ sandbox: { mode: "bwrap", network: false, problem: "bwrap is not installed (no bwrap on PATH)" } }),
  },
]

/** Each phase's records: the ones its gate takes (the first is the usual one), and the ones it refuses. */
const RECORDS = {
  coding: { valid: [CODED], refused: [UNVERIFIED, CLEAN] },
  auditing: { valid: [CLEAN, BUG], refused: [BARE, CODED] },
  final_auditing: { valid: [BARE, BUG], refused: [BUG_WITH_SUMMARY, CODED] },
  final_audit_fix: { valid: [CODED], refused: [UNVERIFIED, BUG] },
  post_action: { valid: [COMPLETE, POST_FAILED], refused: [CODED, BARE] },
} as const

const cancel: LoopEvent = { type: "loop.cancel", reason: "cancelled: the plan changed", session: null }
/** A pass asks to cancel its own loop: the machine refuses it. */
const cancelFromPass = (session: string): LoopEvent => ({ type: "loop.cancel", reason: "cancelled: stuck", session })
/** A process started beside the live driver asks to drive the loop: the driver gate leaves it to the live one. */
const besideDriver: LoopEvent = {
  type: "loop.restored",
  driver: { me: NEIGHBOUR_DRIVER, claim: { holder: MODEL_DRIVER, until: Number.MAX_SAFE_INTEGER }, holderAlive: true, now: 0 },
}
/** A pass's tool calls: a write in the worktree (a coder's work), and one in the project itself (never a pass's). */
const OUTSIDE = "/work/project/src/parser.ts"
const writeInWorktree: LoopEvent = { type: "tool.use", tool: "forge_write", paths: [`${MODEL_WORKTREE.dir}/src/parser.ts`] }
const dropPending = (session: string, rationale: string): LoopEvent => ({
  type: "loop.adjust",
  session,
  pending: [],
  rationale,
  now: T_ADJUST,
})

/** The auditor edits the section under audit in place (its progress kept), the sections after it kept. */
const editCurrent = (session: string): LoopEvent => ({
  type: "loop.adjust",
  session,
  current: { title: "Parser", content: "Write the parser in src/parser.ts; unary minus binds tighter than multiplication." },
  rationale: "The section left unary minus unsaid.",
  now: T_ADJUST,
})

/** The auditor records a bug (review_write): it stays open, and blocks every audit of its scope, until deleted. */
const RECORDED = {
  file: "src/printer.ts",
  line: 7,
  severity: "bug",
  description: "a - (b - c) prints as a - b - c",
  scenario: "print(parse('1-(2-3)'))",
} as const
const recordBug = (session: string, section: number): LoopEvent => ({ type: "loop.review.write", session, finding: { ...RECORDED, section } })

type Snapshot = SnapshotFrom<typeof loopMachine>

/**
 * Whether the loop is in this phase for the first time: what a phase shows once (its reminders and stall, its ends by
 * cancel or failure) is explored there only.
 */
function firstVisit(state: Snapshot, phase: Phase): boolean {
  const c = state.context
  if (phase === "coding") return c.iteration === 1
  if (phase === "auditing") return c.iteration === 2
  // The final audit the section audits led to (not the one after a fix); a fix comes once in 4 passes.
  if (phase === "final_auditing") return c.last?.role === "auditor"
  return true
}

type Phase = keyof typeof RECORDS

/** The events the world can produce in a state (see the header for the bounds). */
function eventsIn(state: Snapshot): LoopEvent[] {
  const c = state.context
  if (state.matches("refused")) return []
  const last = c.sessions.at(-1) ?? STRANGER
  if (state.status === "done") {
    return [
      cancel,
      { type: "loop.fail", reason: DIRECT_FAIL },
      restored,
      { type: "loop.handoff", session: last, handoff: CODED },
      { type: "loop.session.opened", session: "ses_late", driver: MODEL_DRIVER },
      writeInWorktree,
    ]
  }
  const phase = loopPhaseOf(state.value) as Phase
  const pass = loopPassOf(state)
  const nudges = pass?.context.nudges ?? 0
  const pending = pass?.context.pending ?? null
  // A budget walk runs one record per pass to where its budget runs out.
  const walk: { dirty: "every" | "final" | "first" } | undefined = (WALKS as Record<number, { dirty: "every" | "final" | "first" }>)[c.startedAt]
  if (walk !== undefined) return budgetWalk(state, phase, walk.dirty)
  if (RESUMED_STARTS.has(c.startedAt)) return budgetWalk(state, phase, "none")
  if (c.startedAt === RESTART_WALK) return restartWalk(state, phase)
  const first = firstVisit(state, phase)
  if (pass?.hasTag("opening") === true) {
    const events: LoopEvent[] = [{ type: "loop.session.opened", session: nextPassSession(c), driver: MODEL_DRIVER }]
    if (first) events.push({ type: "loop.session.failed", error: "session.create failed: 503" }, { type: "loop.fail", reason: BRIEF_FAILED }, cancel)
    // A process restarts while it opens a phase's first pass: the session is opened again, on the same pass.
    if (first) events.push(restored)
    if (first && c.driver !== null) events.push(besideDriver)
    if (c.sessions.length > 0) events.push({ type: "loop.handoff", session: last, handoff: CODED })
    return events
  }
  const current = c.session as string
  const previous = c.sessions.at(-2)
  const { valid, refused } = RECORDS[phase]
  const handoff = (session: string, record: LoopHandoff): LoopEvent => ({ type: "loop.handoff", session, handoff: record })
  const events: LoopEvent[] = [
    // A reminded pass hands off only its phase's usual record; a twice-reminded one never does (it stalls).
    ...(nudges === 0 && first ? valid : nudges <= 1 ? valid.slice(0, 1) : []).map((record) => handoff(current, record)),
    ...refused.map((record) => handoff(current, record)),
    handoff(STRANGER, valid[0]),
    ...(previous === undefined ? [] : [handoff(previous, valid[0])]),
    // The turn ends: it applies the handoff, or (first visit only) is reminded, or stalls.
    ...(pending !== null || first ? [{ type: "loop.idle", session: current } as const] : []),
    { type: "loop.idle", session: previous ?? STRANGER },
    { type: "tool.use", tool: "forge_read", paths: [] },
    writeInWorktree,
    { type: "tool.use", tool: "forge_write", paths: [OUTSIDE] },
    { type: "tool.use", tool: "forge_shell", paths: [path.dirname(OUTSIDE)] },
    // A pass asks the user, or writes a plan of its own: denied in every phase.
    { type: "tool.use", tool: "question", paths: [] },
    { type: "tool.use", tool: "plan_write", paths: [] },
  ]
  if (phase === "auditing" && c.amendments.length === 0 && nudges === 0)
    events.push(dropPending(current, "The printer moves to a plan of its own."), dropPending(current, "  "), editCurrent(current))
  if (phase === "coding") events.push(dropPending(current, "A coder may not amend."))
  // Findings as records: the auditor records one on its first visit and deletes what is open (a later audit can only
  // go clean once it does); a second one at the same place, one from an earlier pass, one after the handoff, a delete
  // of what is not there and a coder's delete are refused.
  const audit = phase === "auditing" || phase === "final_auditing"
  const section = phase === "final_auditing" ? -1 : c.sectionIndex
  if (audit) events.push(...c.findings.map((f) => deleteFinding(current, f)))
  if (audit && first && nudges === 0 && pending === null && c.findings.length === 0) events.push(recordBug(current, section))
  if (audit && first && nudges === 0 && pending === null && c.findings.length > 0)
    events.push(recordBug(current, section), deleteFinding(current, { ...RECORDED, section, line: 99 }))
  if (audit && first && nudges === 0 && previous !== undefined && c.findings.length === 0) events.push(recordBug(previous, section))
  if (audit && first && pending !== null && c.findings.length === 0) events.push(recordBug(current, section))
  if (phase === "coding" && first && nudges === 0) events.push(deleteFinding(current, { ...RECORDED, section: c.sectionIndex }))
  if (first && nudges === 0 && pending === null) events.push(cancel, cancelFromPass(current), { type: "loop.fail", reason: NUDGE_FAILED })
  // opencode reports errors of the pass's turn: counted, the third in a row ends the loop (explored in the first coder
  // pass); an earlier pass's session's error is not the loop's (the first audit, once).
  if (first && pending === null && nudges === 0 && phase === "coding")
    events.push({ type: "loop.session.error", session: current, error: "APIError: provider returned 500" })
  // The stall watch finds the pass's session silent past the stall timeout (16 minutes of 15): the loop stalls.
  if (first && pending === null && nudges === 0 && phase === "coding") events.push({ type: "loop.session.silent", session: current, silentMs: 16 * 60_000 })
  if (first && pending === null && nudges === 0 && phase === "auditing" && previous !== undefined && c.findings.length === 0)
    events.push(
      { type: "loop.session.error", session: previous, error: "APIError: provider returned 500" },
      // A watch's late report for a pass the loop has moved past: refused.
      { type: "loop.session.silent", session: previous, silentMs: 16 * 60_000 },
    )
  // A handoff while a subagent of the pass still works: refused, naming it.
  if (first && nudges === 0 && pending === null) events.push({ type: "loop.handoff", session: current, handoff: valid[0], busy: ["ses_subagent_1"] })
  if (first && nudges === 0 && pending === valid[0]) events.push({ type: "loop.fail", reason: DIRECT_FAIL })
  // A running loop is restarted only with force (the restart walk takes the forced ones).
  if (first && nudges === 0 && pending === null) events.push(restartOf(false))
  events.push(restored)
  if (first && nudges === 0) events.push(besideDriver)
  return events
}

export function loopModel(): ModelWorldByState<typeof loopMachine> {
  return {
    machine: loopMachine,
    configs,
    events: eventsIn,
    // One extension set per state value (the pass's included, whether its session's handoff is recorded: the pass's
    // adjust and review gates read it, and whether a finding is open: the review gate's delete needs one), from the
    // first path that reaches it: every probe a state takes (the refusals above all); what depends on the rest of the
    // context (reminders left, the last section, the budget) has paths of its own.
    extensionKey: (state) => {
      const pass = loopPassOf(state)
      return JSON.stringify([state.value, pass?.value ?? null, (pass?.context.pending ?? null) !== null, state.context.findings.length > 0])
    },
    limit: 20_000,
  }
}
