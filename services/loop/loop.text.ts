import { roleOfPhase } from "../../machines/loop/loop.gates"
import { type LoopContext, loopPassOf, loopPhaseOf } from "../../machines/loop/loop.machine"
import { loopStatusOf } from "../../machines/loop/loop.status"
import type { LoopSnapshot } from "./loop.lifecycle"

// What the loop tools answer: a started loop, a loop in a line, a loop in detail.

export function loopStartedText(context: LoopContext): string {
  const { loopName, sections, worktree } = context
  return [
    `Loop ${loopName} started: ${sections.length} section${sections.length === 1 ? "" : "s"}, at most ${context.maxIterations} passes.`,
    `Worktree ${worktree.dir} on branch ${worktree.branch} (from ${worktree.base.slice(0, 12)}).`,
    ...sections.map((s, i) => `${i + 1}. ${s.title}`),
    "A coder session opens for section 1; each pass runs in a session of its own, and this session is told when the loop ends. loop_status shows where it stands; loop_cancel stops it.",
  ].join("\n")
}

/** What loop_status {restart} answers: where the loop starts again, and what it kept. */
export function loopRestartedText(snapshot: LoopSnapshot, force: boolean): string {
  const { loopName, sections, sectionIndex, findings, restarts, maxIterations, worktree } = snapshot.context
  const from = restarts.at(-1)?.from ?? "?"
  const done = sections.filter((s) => s.status === "done").length
  const open = findings.length
  return [
    `Loop ${loopName} restarted${force && from.startsWith("running") ? " (forced)" : ""} from ${from}: it is ${where(snapshot)}, section ${sectionIndex + 1} of ${sections.length}.`,
    `Kept: ${done} of ${sections.length} sections done, ${open} open finding${open === 1 ? "" : "s"}, its amendments and history; its budget starts again (at most ${maxIterations} passes).`,
    `Worktree ${worktree.dir} on branch ${worktree.branch}. A new session opens for this pass; this process drives the loop now.`,
  ].join("\n")
}

export function loopLineText(snapshot: LoopSnapshot): string {
  const { loopName, sections, sectionIndex, iteration, maxIterations, restarts } = snapshot.context
  const done = sections.filter((s) => s.status === "done").length
  const restarted = restarts.length === 0 ? "" : `, restarted ${restarts.length === 1 ? "once" : `${restarts.length} times`}`
  return `${loopName}: ${where(snapshot)} — ${done}/${sections.length} sections done, pass ${iteration}/${maxIterations}${restarted}${
    snapshot.hasTag("live") ? ` (section ${sectionIndex + 1})` : ""
  }`
}

export function loopDetailText(snapshot: LoopSnapshot): string {
  const c = snapshot.context
  return [
    loopLineText(snapshot),
    `title: ${c.title}`,
    `plan: ${c.planPath ?? "given inline"}`,
    `worktree: ${c.worktree.dir} (branch ${c.worktree.branch}, from ${c.worktree.base.slice(0, 12)})`,
    `current session: ${c.session ?? "(none)"}${(loopPassOf(snapshot)?.context.pending ?? null) === null ? "" : " — handoff recorded, applied when its turn ends"}`,
    ...(c.reason === null ? [] : [`ended: ${c.reason}`]),
    "sections:",
    ...c.sections.map((s, i) => `  ${i + 1}. [${s.status === "done" ? "x" : " "}] ${s.title}`),
    ...(c.amendments.length === 0 ? [] : [`amendments: ${c.amendments.map((a) => `at section ${a.section}: ${a.rationale}`).join("; ")}`]),
    ...c.restarts.map((r, i) => `restart ${i + 1}: from ${r.from}${r.reason === null ? "" : ` (${r.reason})`} after ${r.passes} passes`),
    `sessions: ${c.sessions.join(", ") || "(none yet)"}`,
  ].join("\n")
}

function where(snapshot: LoopSnapshot): string {
  const phase = loopPhaseOf(snapshot.value)
  if (phase === undefined) return loopStatusOf(snapshot.value)
  return `running, ${phase} (${roleOfPhase(phase)})${loopPassOf(snapshot)?.hasTag("opening") === true ? ", opening its session" : ""}`
}

/** What section_read answers: one section, or the pending ones after the current section, as JSON (seed 000's shape). */
export type SectionReadRequest = { sectionIndex?: number; pendingSuffix?: boolean }

export function sectionReadText(context: LoopContext, request: SectionReadRequest): string {
  const { sections, sectionIndex } = context
  const shown = (index: number) => {
    const section = sections[index]
    return section === undefined ? undefined : { index, title: section.title, content: section.content, status: section.status }
  }
  if (request.pendingSuffix === true) {
    const from = sectionIndex + 1
    const pending = sections.flatMap((_, index) => (index >= from ? [shown(index)] : []))
    return JSON.stringify({ from_index: from, sections: pending }, null, 2)
  }
  // Without an index: the lowest-index section not done (the last one once all are).
  const undone = sections.findIndex((s) => s.status !== "done")
  const index = request.sectionIndex ?? (undone === -1 ? sections.length - 1 : undone)
  const section = shown(index)
  if (section === undefined)
    throw new Error(
      `section_read: loop ${context.loopName} has ${sections.length} section${sections.length === 1 ? "" : "s"}, indexed 0 to ${sections.length - 1}; ${index} is none of them.`,
    )
  return JSON.stringify(section, null, 2)
}
