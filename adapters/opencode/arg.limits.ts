import * as z from "zod"

// How long each kind of text argument of a Forge tool may be, in one table: a limit fits the argument's use, and
// is checked by the tool's schema, before anything runs or is written (a 10 MB goal objective once became 20 MB of
// documents). tool.args.ts words the refusal: the argument, its length and the limit. The model sees each limit as
// the JSON Schema's maxLength.

export const ARG_LIMITS = {
  /** A name or title: a subtask, a plan title, an agent, a job id. */
  name: 500,
  /** A sentence or two: a criterion, a reason, a blocker, a literal to find. */
  line: 4_000,
  /** A paragraph of prose or evidence: an objective, what shows a verdict. */
  text: 20_000,
  /** A whole document: a plan, a plan edit. */
  document: 200_000,
  /** A whole file the model writes in one call (a larger one is made by a program, through forge_shell). */
  file: 4 * 1024 * 1024,
  /** A shell command line. */
  command: 32_000,
  /** A regular expression the host compiles. */
  pattern: 1_000,
  /** A file system path (Linux's PATH_MAX). */
  path: 4_096,
  /** A URL. */
  url: 8_192,
} as const

/** Items a list argument may hold: criteria, checks, subtasks, verdicts. */
export const MAX_LIST_ITEMS = 100

/** A string argument of the given kind, bounded by its limit. */
export function boundedText(kind: keyof typeof ARG_LIMITS) {
  return z.string().max(ARG_LIMITS[kind])
}
