/** Where goal documents live, relative to the workspace root. */
export const GOAL_DIR = ".opencode/goal"
