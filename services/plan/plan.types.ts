// The plan document's data model: what the codec reads from and writes to `.opencode/plan/<date>-<slug>.md`.

export type PlanStatus = "draft" | "approved" | "done" | "abandoned" | "superseded"

/** Every status, in lifecycle order (also the order error messages list them in). */
export const PLAN_STATUSES: readonly PlanStatus[] = ["draft", "approved", "done", "abandoned", "superseded"]

export interface PlanFrontmatter {
  status: PlanStatus
  title: string
  /** ISO timestamp. */
  created: string
  /** ISO timestamp. */
  updated: string
  /** The session the plan is bound to, when bound. */
  session?: string
  /** Workspace-relative path of the document that took the work over; present exactly when superseded. */
  successor?: string
}

/** One `- [ ] N. text` line of the first Tasks section. Lines are 1-based, in the coordinates of the parsed text. */
export interface PlanTask {
  number: number
  text: string
  ticked: boolean
  tickedAt?: string
  line: number
}

/** One bullet of the first Acceptance Criteria section; `index` is 1-based. */
export interface PlanCriterion {
  index: number
  text: string
  line: number
}

/** A `## Phase N: Title` heading; `index` is its 1-based position among phases, `marked` whether a section marker precedes it. */
export interface PlanPhase {
  index: number
  title: string
  line: number
  marked: boolean
}

/** One markdown heading before the narrative. */
export interface PlanOutlineEntry {
  level: number
  title: string
  line: number
}

export interface PlanBody {
  tasks: PlanTask[]
  criteria: PlanCriterion[]
  phases: PlanPhase[]
  outline: PlanOutlineEntry[]
  /** Structural problems that do not stop a draft from being stored (missing markers, no tasks yet, ...). */
  warnings: string[]
}

export interface PlanDocument extends PlanBody {
  frontmatter: PlanFrontmatter
  /** Everything after the closing frontmatter delimiter line, byte for byte. */
  body: string
  /** The whole document as parsed. */
  text: string
}

/** One acceptance criterion's verdict in a closing narrative. */
export interface CriterionResult {
  criterion: string
  pass: boolean
  evidence: string
}

/** A dated section appended after the narrative marker by a terminal transition. `at` is an ISO timestamp. */
export type NarrativeEntry =
  | { at: string; kind: "closed"; results: CriterionResult[] }
  | { at: string; kind: "abandoned"; reason?: string }
  | { at: string; kind: "superseded"; reason?: string; successor: string }
