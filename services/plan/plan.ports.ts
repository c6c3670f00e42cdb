// What the plan service needs from the world; adapters/workspace provides it. The ports every lifecycle shares
// (Logger, Clock, Confirm) live in the lifecycle kernel; the document files and line search ports in services/documents.

import type { DocumentFiles } from "../documents/document.ports"

/** The plan folder of one workspace: the document files of `.opencode/plan/`, e.g. ".opencode/plan/2026-11-30-x.md". */
export type PlanFiles = DocumentFiles
