// The dialogs a lifecycle holds open for the user. Every entry into a dialog state (a state tagged `awaiting-user`)
// opens a new dialog: the machine's `openDialog` action counts it in the context's `dialog`. An answer
// (`dialog.allow`, `dialog.reject`) names the dialog it answers, and the machine's `isAnswerToOpenDialog` guard takes
// it only while that dialog is the one open. An answer to a dialog that has since closed — the instance moved on, or
// left the dialog state and entered it again (two dialogs of one instance in the same state) — is refused, in
// whichever opencode process it arrives.

/** What an answer event carries: the number of the dialog it answers (the context's `dialog` when it was asked). */
export interface DialogAnswerFields {
  dialog: number
}

/** The number a dialog opened now gets: one more than the last one the instance opened. */
export function nextDialog(last: number): number {
  return last + 1
}

/** Whether an answer is to the dialog the instance holds open now. */
export function isAnswerToOpenDialog({ open, answered }: { open: number; answered: number }): boolean {
  return open === answered
}

/**
 * Why an answer was refused because its dialog had closed (the refusal files say it for every lifecycle alike).
 * `subject` names the instance ("plan .opencode/plan/x.md"), `status` what it is now.
 */
export function staleAnswerText({ subject, status, answered, open }: { subject: string; status: string; answered: number; open: number }): string {
  const now = open > answered ? `dialog ${open} was opened since` : "it holds no such dialog"
  return `answer refused: it is for dialog ${answered} of ${subject}, which closed while it was open (${now}; ${subject} is ${status} now: another command, or another opencode process on this workspace, moved it). This answer changes nothing. Ask again if it still matters.`
}
