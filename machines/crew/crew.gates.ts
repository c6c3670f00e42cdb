import type { CrewStatus } from "./crew.status"

// Pure predicates behind the crew machine's guards: the declared plan a crew registers, and the close report's
// cross-check against it. Plain functions so they read (and port) without XState.

export interface CrewSubtask {
  title: string
  /** The forge-* worker the subtask is meant for, if the orchestrator named one. */
  agent: string | null
  /**
   * The files the subtask owns: it alone changes them, so workers of one wave never write over each other. Paths as
   * the orchestrator gave them, relative to the workspace; none when the subtask changes no file or did not say.
   */
  files: string[]
}

export type CrewVerdictWord = "PASS" | "FAIL"

/** One subtask's line of a close report. */
export interface CrewVerdict {
  subtask: string
  verdict: CrewVerdictWord
  /** What shows the verdict: files, command output, the worker's own words. */
  evidence: string
  /** A FAIL's failure reports: the first attempt's and the retry's (a failure is retried at most once). */
  failures: string[]
}

/** A FAIL is reported only after its one retry: both attempts' failure reports. */
export const FAIL_REPORTS_REQUIRED = 2

/** Titles compare as written, ignoring case and runs of whitespace: "Write  tests" and "write tests" are one subtask. */
export function subtaskKey(title: string): string {
  return title.trim().replace(/\s+/g, " ").toLowerCase()
}

/**
 * What the session and the workspace held when crew_begin asked for the crew, read by the service just before the
 * birth: the birth gate decides on them, with the registration. Kept in the context as the facts the crew was born on.
 */
export interface CrewBirthFacts {
  /** The session's live crew then (pending or executing): a session runs one crew at a time. */
  liveCrew: { crewPath: string; status: CrewStatus } | null
  /** How many forge-* workers a task call could dispatch then, and forge.json's findings (for the setup guidance). */
  workers: { dispatchable: number; findings: string[] }
}

/** The session held a live crew when the new one was asked for (null facts: a record past its birth). */
export function hasLiveCrew(birth: CrewBirthFacts | null): boolean {
  return birth !== null && birth.liveCrew !== null
}

/** No forge-* worker could be dispatched when the crew was asked for (null facts: a record past its birth). */
export function lacksDispatchableWorker(birth: CrewBirthFacts | null): boolean {
  return birth !== null && birth.workers.dispatchable === 0
}

/** What is wrong with a registration's objective and declared plan. Empty when it may register. */
export function registrationProblems(objective: string, subtasks: readonly CrewSubtask[]): string[] {
  return [...(objective.trim() === "" ? ["the crew needs an objective"] : []), ...declaredPlanProblems(subtasks)]
}

/**
 * What is wrong with a declared plan: empty or duplicate titles, no subtask at all, an empty file or one owned by two
 * subtasks. Empty when it may register.
 */
export function declaredPlanProblems(subtasks: readonly CrewSubtask[]): string[] {
  if (subtasks.length === 0) return ["the crew declares no subtask: give each piece of work one titled subtask"]
  const problems: string[] = []
  const seen = new Set<string>()
  const owners = new Map<string, number>()
  subtasks.forEach((subtask, index) => {
    const key = subtaskKey(subtask.title)
    if (key === "") problems.push(`subtask ${index + 1} has an empty title`)
    else if (seen.has(key)) problems.push(`subtask ${index + 1} repeats the title "${subtask.title.trim()}" (titles must be unique)`)
    seen.add(key)
    for (const file of subtask.files) {
      const owned = fileKey(file)
      const owner = owners.get(owned)
      if (owned === "") problems.push(`subtask ${index + 1} owns a file with an empty path`)
      else if (owner === undefined) owners.set(owned, index)
      else if (owner !== index)
        problems.push(`subtask ${index + 1} and subtask ${owner + 1} both own ${owned} (a file has one owner: workers of one wave would write over each other)`)
    }
  })
  return problems
}

/** A path as ownership compares it: `./src//a.ts` and `src/a.ts` are one file. */
export function fileKey(file: string): string {
  return file
    .trim()
    .replace(/\\/g, "/")
    .replace(/\/{2,}/g, "/")
    .replace(/^(\.\/)+/, "")
    .replace(/\/$/, "")
}

/** How a close report stands against the declared plan. */
export interface ReportCoverage {
  /** Declared subtasks the report gives no verdict. */
  missing: string[]
  /** Report lines naming no declared subtask. */
  undeclared: string[]
  /** Declared subtasks given more than one verdict. */
  repeated: string[]
  /** Verdicts without evidence. */
  withoutEvidence: string[]
  /** FAIL verdicts without both failure reports. */
  failsWithoutReports: string[]
}

export function reportCoverage(declared: readonly CrewSubtask[], report: readonly CrewVerdict[]): ReportCoverage {
  const titles = new Map(declared.map((s) => [subtaskKey(s.title), s.title]))
  const given = new Map<string, number>()
  const coverage: ReportCoverage = { missing: [], undeclared: [], repeated: [], withoutEvidence: [], failsWithoutReports: [] }
  for (const line of report) {
    const key = subtaskKey(line.subtask)
    if (!titles.has(key)) {
      coverage.undeclared.push(line.subtask)
      continue
    }
    given.set(key, (given.get(key) ?? 0) + 1)
    if (line.evidence.trim() === "") coverage.withoutEvidence.push(line.subtask)
    if (line.verdict === "FAIL" && line.failures.filter((f) => f.trim() !== "").length < FAIL_REPORTS_REQUIRED) coverage.failsWithoutReports.push(line.subtask)
  }
  for (const [key, title] of titles) {
    const count = given.get(key) ?? 0
    if (count === 0) coverage.missing.push(title)
    else if (count > 1) coverage.repeated.push(title)
  }
  return coverage
}

/** Whether a report closes the crew: every declared subtask has one verdict with evidence, nothing undeclared. */
export function isCompleteReport(declared: readonly CrewSubtask[], report: readonly CrewVerdict[]): boolean {
  const c = reportCoverage(declared, report)
  return c.missing.length + c.undeclared.length + c.repeated.length + c.withoutEvidence.length + c.failsWithoutReports.length === 0
}

/**
 * Whether following a crew record that says `to` would pass a gate the user holds on a crew that is `from`: the close
 * (to closed) or the arm dialog (to executing, from pending). Once a change is on disk nobody can tell a hand edit
 * from the model's, so such a change waits for the user's dialog.
 */
export function isUserGatedCrewDocumentStatus(from: CrewStatus, to: CrewStatus): boolean {
  if (from === to) return false
  return to === "closed" || (to === "executing" && from === "pending")
}
