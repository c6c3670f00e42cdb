import path from "node:path"
import { slugify } from "../plan/plan.naming"

// What a loop_start gets for what it leaves out: its name from the title, its budget, and where its worktree and
// branch go. Machine-free, so a tool's TUI line (drawn at plugin start) can say them too.

/** Where every loop's worktree folder is made, in the workspace. */
export const LOOP_WORKTREES_DIR = path.join(".opencode", "forge", "worktrees")
/** The prefix of every loop's branch. */
export const LOOP_BRANCH_PREFIX = "forge/loop/"

/** Passes a loop may spend when loop_start names no budget (more when its sections need them). */
export const DEFAULT_LOOP_ITERATIONS = 15

/** The name a loop asked for as `wanted` gets when free: a slug of [a-z0-9-] (its worktree folder and branch). */
export function loopSlug(wanted: string): string {
  return (
    slugify(wanted)
      .replace(/[^a-z0-9-]/g, "")
      .replace(/-{2,}/g, "-")
      .replace(/^-+|-+$/g, "") || "loop"
  )
}
