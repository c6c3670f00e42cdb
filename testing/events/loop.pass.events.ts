import type { SnapshotFrom } from "xstate"
import { loopPassMachine } from "../../machines/loop/loop.pass.machine"
import type { LoopPassEvent, LoopPassInput } from "../../machines/loop/loop.types"
import type { ModelWorldByState } from "../model.world"
import { CODED, MAX_PASSES, UNVERIFIED, restored } from "./loop.fixtures"
import { BARE, CLEAN } from "./loop.walks"
import { MODEL_DRIVER, passSession } from "./loop.world"

// The model world of one pass of a loop phase, alone: its session opened (or not), briefed, reminded, handed off,
// failing, silent, taken over by a restart; an auditor's pass also amends the sections and records and deletes
// findings, before its handoff (and is refused after it). The first config is the loop's first coding pass, the one a
// loop born from its plan runs first; the last is a pass its loop's budget has no room for.

type Snapshot = SnapshotFrom<typeof loopPassMachine>

/** Each phase's records: the one its gate takes, and a malformed one it refuses. */
const RECORDS = { coding: { valid: CODED, malformed: UNVERIFIED }, auditing: { valid: CLEAN, malformed: BARE } } as const

/** What the world can do to a pass in each state: the pass of iteration n runs in session `ses_pass_<n>`. */
function eventsIn(state: Snapshot): LoopPassEvent[] {
  const { phase, iteration, pending } = state.context
  const session = passSession(iteration)
  if (state.hasTag("opening")) {
    return [
      { type: "loop.session.opened", session, driver: MODEL_DRIVER },
      { type: "loop.session.failed", error: "session.create failed: 503" },
      restored as LoopPassEvent,
    ]
  }
  if (!state.hasTag("working")) return []
  const records = phase === "auditing" ? RECORDS.auditing : RECORDS.coding
  const events: LoopPassEvent[] = [
    { type: "loop.handoff", session, handoff: records.valid },
    // A malformed record: the handoff gate refuses it, and nothing is held.
    { type: "loop.handoff", session, handoff: records.malformed },
    { type: "loop.idle", session },
  ]
  if (pending === null) events.push(restored as LoopPassEvent)
  // opencode reports an error of the pass's turn (the third in a row ends it), or the stall watch finds it silent.
  events.push({ type: "loop.session.error", session, error: "APIError: provider returned 500" })
  events.push({ type: "loop.session.silent", session, silentMs: 16 * 60_000 })
  // An auditor's own calls: before its handoff they go through, after it they are refused.
  if (phase === "auditing") {
    const finding = { section: 0, file: "src/parser.ts", line: 12, severity: "bug", description: "unary minus binds looser", scenario: null } as const
    events.push(
      { type: "loop.adjust", session, pending: [], rationale: "The printer moves to a plan of its own.", now: 0 },
      { type: "loop.review.write", session, finding },
      { type: "loop.review.delete", session, section: 0, file: finding.file, line: finding.line },
    )
  }
  return events
}

export function loopPassModel(): ModelWorldByState<typeof loopPassMachine> {
  const pass = (phase: LoopPassInput["phase"], iteration: number): LoopPassInput => ({ phase, iteration, maxIterations: MAX_PASSES })
  return {
    machine: loopPassMachine,
    configs: [
      { name: "the loop's first coding pass", input: pass("coding", 1) },
      { name: "a section audit's pass", input: pass("auditing", 2) },
      { name: "a pass the loop's budget has no room for", input: pass("coding", MAX_PASSES + 1) },
    ],
    events: eventsIn,
  }
}
