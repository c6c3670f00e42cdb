/** Whether an error (or one of its causes: drizzle wraps driver errors) is SQLite's "database is locked". */
export function isBusy(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code
    if (code === "SQLITE_BUSY" || /SQLITE_BUSY|database is locked/.test(e.message)) return true
  }
  return false
}
