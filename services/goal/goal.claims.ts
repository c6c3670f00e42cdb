/** The goal lifecycle's machine id: its instances' driver claims are kept under it. */
export const GOAL_CLAIMS = "goal"
