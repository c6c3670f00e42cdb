/** Where crew records live, relative to the workspace root. */
export const CREW_DIR = ".opencode/crew"
