/** Where plan documents live, relative to the workspace root. */
export const PLAN_DIR = ".opencode/plan"

/** Plan paths given by a model or user must name a document inside the plan folder. */
export function checkPlanPath(path: string): string {
  const normalized = path.replace(/\\/g, "/").replace(/^\.\//, "")
  const inside = normalized.startsWith(`${PLAN_DIR}/`) && normalized.endsWith(".md") && !normalized.split("/").includes("..")
  if (!inside) throw new Error(`plan path "${path}" is outside ${PLAN_DIR}/: plans live in ${PLAN_DIR}/<date>-<slug>.md`)
  return normalized
}
