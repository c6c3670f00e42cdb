// The /plan command: its template is the planning discipline for the turn; the plugin rewrites the turn's text for
// the sub-commands (list, resume, confirm, discard) after doing the work itself, because those are the user's own actions.

// The slash-command popup cuts a description at the prompt box's edge with no ellipsis; on opencode's home screen
// (a 75-column prompt, the longest command name taking 13) about 57 characters show.
export const PLAN_COMMAND_DESCRIPTION = "Plan first: <task> · list · resume · confirm · discard"

export const PLAN_COMMAND_TEMPLATE = `[forge:plan] The user asks for a plan before any change is made:

$ARGUMENTS

Planning discipline for this turn:
1. Reconnaissance only: read, grep and glob. Do not change anything.
2. Write the plan with plan_write: "# Title", Goal, Context, Approach, optional phases ("<!-- forge-section -->" then
   "## Phase N: Title"), "## Tasks" as "- [ ] 1. ..." lines, "## Acceptance Criteria" as "- ..." bullets, Risks.
3. The plan is now a draft and every write/edit/shell/task tool is banned in this session until the user approves.
4. Present the plan briefly (path, tasks, criteria) and end your turn. Do not call plan_approve in this turn:
   wait for the user's explicit go-ahead, then call plan_approve (the user confirms in a dialog).`

export function planListText(listing: string): string {
  return `[forge:plan list] The user ran /plan and sees this list of unfinished plans in their own message. Do not repeat it; answer in one short sentence (how to resume or start one) and stop:\n\n${listing}`
}

export function planResumeText(planPath: string, status: string, document: string, from: string | null = null, notes: string[] = []): string {
  const next =
    status === "draft"
      ? "It is a draft: writes stay banned. Summarise it for the user and wait for approval (plan_approve only after an explicit go-ahead)."
      : "It is approved: continue with the first open task, and tick each task with plan_tick when it is done."
  const moved = from === null ? "" : ` It was bound to session ${from}; it is now bound to this one (recorded in its frontmatter).`
  // A loop that ran the plan did its work on a branch of its own: its note says so before the model ticks anything.
  const loops = notes.length === 0 ? "" : `\nWhat ran it:\n${notes.map((note) => `- ${note}`).join("\n")}`
  return `[forge:plan resume] The user resumed ${planPath} (${status}) in this session.${moved} ${next}${loops}\n\n${document}`
}

/**
 * /plan confirm: the document says a status the plan holds pending the user (approved, done). The confirmation is the
 * tool path's own dialog, so the model is told to open it; only the user's allow there moves the plan.
 */
export function planConfirmText(planPath: string, status: string, pending: string): { model: string; user: string } {
  const close = status === "approved" && pending === "done"
  const dialog = close ? "the close dialog" : "the approval dialog"
  const call = close
    ? "Call plan_close now with one check per acceptance criterion (pass + evidence: what you ran and saw); tick any open task with plan_tick first."
    : "Call plan_approve now."
  const after = close ? "" : pending === "done" ? " Once approved, the plan closes only through plan_close and its own dialog." : ""
  return {
    model: `[forge:plan confirm] The user confirms that ${planPath} becomes ${close ? "done" : "approved"}, as its document says (status: ${pending}; the plan is ${status}). ${call} ${dialog[0]?.toUpperCase()}${dialog.slice(1)} asks the user; only their allow moves the plan.${after} Then stop.`,
    user: `The document of ${planPath} says ${pending}; the plan is ${status}. Confirm in ${dialog} that opens next.`,
  }
}

export function planDiscardText(outcome: string): string {
  return `[forge:plan discard] The user discarded the session's plan. ${outcome} Acknowledge in one sentence and stop.`
}

export function planNothingText(what: string): string {
  return `[forge:plan] ${what} Tell the user in one sentence and stop.`
}

export function planTroubleText(trouble: string): string {
  return `[forge:plan] The user ran /plan, but Forge could not carry it out. ${trouble} Tell the user exactly this, including what to do, and stop.`
}
