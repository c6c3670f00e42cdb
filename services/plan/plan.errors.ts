// The plan's failures. Two are the document kinds' shared ones (services/documents): a document that does not hold a
// valid plan, and a bad argument to one of the codec's operations (the plan names stay for plan code to read). Two
// are the plan tools': a session whose plan lives elsewhere, and one without a live plan.

export { DocumentError as PlanDocumentError, DocumentInputError as PlanInputError } from "../documents/document.errors"

/** A plan tool called for a session whose live plan another opencode process wrote first. */
export class SessionHasPlanError extends Error {
  constructor(sessionId: string, planPath: string) {
    super(
      `this session (${sessionId}) already has a live plan: ${planPath}, written by another opencode process on this workspace. Read it with plan_read and change it with plan_write or plan_edit.`,
    )
    this.name = "SessionHasPlanError"
  }
}

/** A plan tool called for a session without a live plan. */
export class NoPlanError extends Error {
  constructor(sessionId: string) {
    super(`no live plan in this session (${sessionId}). Write one with plan_write, or run /plan resume to continue the most recent unfinished plan.`)
    this.name = "NoPlanError"
  }
}
