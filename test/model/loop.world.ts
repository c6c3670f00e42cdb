import type { LoopContext, LoopWorktree } from "../../machines/loop/loop.machine"

// The loop model's world: the names its paths use are the package's model world's (testing/events/loop.world.ts),
// re-exported for the SUT and the loop tests; the plan the SUT serves and where the SUT's own stand for the model's
// placeholders (its worktree, its process) are the SUT's.

export {
  BRANCH,
  BRIEF_FAILED,
  HOST,
  LOOP,
  MODEL_DRIVER,
  MODEL_WORKTREE,
  NEIGHBOUR_DRIVER,
  NUDGE_FAILED,
  OUTER_LOOP,
  OUTER_SESSION,
  PLAN_PATH,
  SEND_DOWN,
  STRANGER,
  TITLE,
  nextPassSession,
  passSession,
} from "../../testing/events/loop.world"

/** The approved plan the fake LoopPlans serves: two phases, each behind its section marker. */
export const PLAN_BODY = `# Ship the parser

## Goal
Parse and print arithmetic expressions.

<!-- forge-section -->
## Phase 1: Parser
Write a recursive-descent parser for \`+ - * /\` and parentheses in src/parser.ts.

### Notes
Keep the lexer as it is.

<!-- forge-section -->
## Phase 2: Printer
Print a parsed expression back with minimal parentheses in src/printer.ts.

## Tasks
- [ ] 1. Write the parser
- [ ] 2. Write the printer

## Acceptance Criteria
- npm test passes
`

/** Where a model context's placeholders stand for the SUT's own: its worktree, and its process that opened the session. */
export interface Actual {
  worktree: LoopWorktree
  driver: string | null
}

/** The stored context a model context stands for. */
export const actual = <C extends LoopContext>(context: C, { worktree, driver }: Actual): C => ({
  ...context,
  worktree,
  driver: context.driver === null ? null : driver,
})
