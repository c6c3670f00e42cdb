import { statSync } from "node:fs"

/**
 * A change stamp of a database from one stat call: in WAL mode every commit of any connection writes the write-ahead
 * log (without one, the database file itself), so an unchanged stamp means — up to the file system's time
 * granularity — that nobody committed. Undefined for a database that is not a file.
 */
export function databaseStamp(file: string): string | undefined {
  if (file === "" || file === ":memory:") return undefined
  const stat = statSync(`${file}-wal`, { throwIfNoEntry: false }) ?? statSync(file, { throwIfNoEntry: false })
  return stat === undefined ? "-" : `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`
}
