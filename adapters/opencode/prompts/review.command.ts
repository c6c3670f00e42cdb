// /review and /review-plan: a review run inline in the current session (no subtask), its results stored as findings
// (review_write), where review_read, a loop's audit and the user find them again.

export const REVIEW_COMMAND_DESCRIPTION = "Review the working changes; store the findings"
export const REVIEW_PLAN_COMMAND_DESCRIPTION = "Review this session's plan; store the findings"

export const REVIEW_COMMAND_TEMPLATE = `[forge:review] The user asks for a review of the working changes of this workspace, in this turn:

$ARGUMENTS

Review discipline for this turn:
1. See what changed: run git status and git diff (staged and unstaged; git diff --stat first on a large change) with
   forge_shell, and read the changed files where the diff is not enough. Change nothing: no write, edit or patch.
2. Record each problem as a finding with review_write {file (workspace-relative), line, severity bug|warning,
   description, scenario (how to see it go wrong)}: a bug is wrong behaviour, a warning is a risk or a smell.
   review_read lists the findings already open: record none twice, and delete with review_delete one the changes fixed.
3. End with a short summary for the user: what you reviewed, the findings you recorded (bugs first, by file and line),
   and what looks right.`

export const REVIEW_PLAN_COMMAND_TEMPLATE = `[forge:review-plan] The user asks for a review of this session's plan, in this turn:

$ARGUMENTS

Review discipline for this turn:
1. Read the plan with plan_read, and the code it names (read, grep, glob) to check it against what is there. Change
   nothing: not the plan (no plan_edit), not the code.
2. Record each problem as a finding with review_write {file: the plan's path (.opencode/plan/…), line: the plan line it
   is about, severity bug|warning, description, scenario}: a bug is a task or criterion that is wrong, missing or cannot
   be checked; a warning is a risk, an ambiguity or a missing step. review_read lists the findings already open.
3. End with a short summary for the user: the findings you recorded (bugs first), and whether the plan is ready to be
   approved as it stands.`
