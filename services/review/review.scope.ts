// The review tools' requests, and the scopes findings belong to besides a loop's: a goal's audit records its
// findings through the same tools (review_write, review_read, review_delete), kept by the goal's own machine.

export interface ReviewWriteRequest {
  file: string
  line: number
  severity: "bug" | "warning"
  description: string
  scenario?: string
  crossSection?: boolean
  sectionIndex?: number
}

export interface ReviewDeleteRequest {
  file: string
  line: number
  sectionIndex?: number
  crossSection?: boolean
}

export interface ReviewReadRequest {
  loopName?: string
  file?: string
  pattern?: string
  crossSection?: boolean
  allSections?: boolean
  attempts?: boolean
  limit?: number
  beforeId?: number
}

/** Findings kept by another lifecycle for the sessions it owns (a goal's auditor sessions). */
export interface ReviewScope {
  /** Whether `sessionId`'s findings are this scope's. */
  owns(sessionId: string): Promise<boolean>
  write(sessionId: string, request: ReviewWriteRequest): Promise<string>
  delete(sessionId: string, request: ReviewDeleteRequest): Promise<string>
  read(sessionId: string, request: ReviewReadRequest): Promise<string>
}

/** A workspace-relative path as findings keep it: no leading `./`, forward slashes, no doubled ones. */
export function normalFile(file: string): string {
  return file
    .trim()
    .replaceAll("\\", "/")
    .replace(/\/{2,}/g, "/")
    .replace(/^(\.\/)+/, "")
}
