import type { GoalLimits } from "../../machines/goal/goal.gates"
import type { Clock, Logger } from "../lifecycle/lifecycle.ports"
import { appendRevision, describeContractChanges, parseGoalDocument, withGoalFrontmatter } from "./goal.document"
import type { GoalFrontmatter } from "./goal.frontmatter"
import type { GoalSnapshot } from "./goal.lifecycle"
import type { GoalFiles } from "./goal.ports"

// A goal document edited by hand: its contract (and its budgets) are taken in as a new revision, and the document
// says what changed in its Revisions section — nothing is bumped silently. The counters are the machine's; the status
// the document says is handed to the machine (goal.document.changed), which follows a pause and holds a status that
// would pass a gate the user holds (completed, active) until the user confirms it through the dialog.

export interface DocumentRevision {
  contract: ReturnType<typeof parseGoalDocument>["contract"]
  limits: GoalLimits
  /** The document with the revision bumped and the change described. */
  document: string
  changes: string[]
}

function limitsOf(frontmatter: GoalFrontmatter): GoalLimits {
  return {
    maxTurns: frontmatter.max_turns,
    maxMinutes: frontmatter.max_minutes,
    maxCost: frontmatter.max_cost ?? null,
    maxTokens: frontmatter.max_tokens ?? null,
  }
}

function limitChanges(before: GoalLimits, after: GoalLimits): string[] {
  const changes: string[] = []
  const show = (value: number | null) => (value === null ? "none" : String(value))
  if (before.maxTurns !== after.maxTurns) changes.push(`max_turns ${before.maxTurns} → ${after.maxTurns}`)
  if (before.maxMinutes !== after.maxMinutes) changes.push(`max_minutes ${before.maxMinutes} → ${after.maxMinutes}`)
  if (before.maxCost !== after.maxCost) changes.push(`max_cost ${show(before.maxCost)} → ${show(after.maxCost)}`)
  if (before.maxTokens !== after.maxTokens) changes.push(`max_tokens ${show(before.maxTokens)} → ${show(after.maxTokens)}`)
  return changes
}

/** What a changed goal document says: its status, and the revision its contract edit asks for (if any). */
export interface DocumentLook {
  status: GoalFrontmatter["status"]
  revision: DocumentRevision | undefined
}

/** Remembers the stamp each goal's document had when last looked at, so an unchanged document is never read. */
export class GoalDocumentFollower {
  private readonly seen = new Map<string, string | undefined>()

  constructor(private readonly deps: { files: GoalFiles; clock: Clock; log: Logger }) {}

  /**
   * What a goal's document says when it changed since last looked at: its status and the revision a hand edit of its
   * contract asks for. Undefined when unchanged (or unreadable: that is logged, and the goal keeps its contract until
   * the document is fixed).
   */
  async look(goal: GoalSnapshot): Promise<DocumentLook | undefined> {
    const { goalPath } = goal.context
    const stamp = this.deps.files.stamp(goalPath)
    if (this.seen.has(goalPath) && this.seen.get(goalPath) === stamp) return undefined
    // Taken before the read: an edit that lands during the read shows up as a new stamp next time.
    this.seen.set(goalPath, stamp)
    const text = await this.deps.files.read(goalPath)
    if (text === undefined) return undefined
    let document: ReturnType<typeof parseGoalDocument>
    try {
      document = parseGoalDocument(text, goalPath)
    } catch (error) {
      this.deps.log.warn(
        `goal ${goalPath}: the document was edited but cannot be read (${error instanceof Error ? error.message : String(error)}); the goal keeps its contract until it is fixed`,
      )
      return undefined
    }
    const limits = limitsOf(document.frontmatter)
    const status = document.frontmatter.status
    const changes = [...describeContractChanges(goal.context.contract, document.contract), ...limitChanges(goal.context.limits, limits)]
    if (changes.length === 0) return { status, revision: undefined }
    const revision = goal.context.revision + 1
    const at = new Date(this.deps.clock.now()).toISOString()
    const bumped = withGoalFrontmatter(text, goalPath, { revision, updated: at })
    return {
      status,
      revision: {
        contract: document.contract,
        limits,
        document: appendRevision(bumped, goalPath, `${at} revision ${revision} (hand edit): ${changes.join("; ")}`),
        changes,
      },
    }
  }
}
