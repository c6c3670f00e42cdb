/** opencode's session error ({name, data: {message}}) in a line. */
export function sessionErrorText(error: unknown): string {
  const e = error as { name?: unknown; data?: { message?: unknown } } | undefined
  const message = typeof e?.data?.message === "string" ? e.data.message : undefined
  const name = typeof e?.name === "string" ? e.name : "error"
  return message === undefined ? name : `${name}: ${message}`.slice(0, 500)
}
