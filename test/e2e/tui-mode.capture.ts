// A dialog's screen kept as text for the docs. A TUI turn's `capture` takes the rows from the last one that shows
// `from` to the first one after it that shows `to`, cut left of opencode's sidebar, with what changes from run to run
// (the temp folder, dates, times, commits, run, job and session ids, short durations) made constant and blank rows
// collapsed.
// It must equal docs/captures/<name>.txt, so a dialog whose screen changed fails its scenario until the capture is
// taken again (FORGE_E2E_UPDATE_CAPTURES=1 writes it); `npm run captures` then copies it into the docs pages.
import fs from "node:fs"
import path from "node:path"
import { CAPTURES_DIR } from "../../scripts/captures"
/** Set to 1 to write each capture instead of comparing it. */
export const UPDATE_CAPTURES_ENV = "FORGE_E2E_UPDATE_CAPTURES"

export interface CaptureSpec {
  name: string
  from: string
  to: string
}

/** The capture's rows of `screen`, made constant; or what kept them from being found. */
export function captureRegion(screen: string, spec: CaptureSpec, root: string): { text: string } | { problem: string } {
  const rows = screen.split("\n")
  // The sidebar's column: where its "Context" heading starts (no sidebar on a narrow screen: nothing is cut).
  const sidebar = rows.map((row) => row.search(/ {2}Context\s*$/)).find((at) => at >= 0)
  const cut = sidebar === undefined ? (row: string) => row : (row: string) => row.slice(0, sidebar + 2)
  const start = rows.findLastIndex((row) => cut(row).includes(spec.from))
  if (start < 0) return { problem: `no row of the screen shows ${JSON.stringify(spec.from)}` }
  const end = rows.findIndex((row, i) => i >= start && cut(row).includes(spec.to))
  if (end < 0) return { problem: `no row from ${JSON.stringify(spec.from)} on shows ${JSON.stringify(spec.to)}` }
  const kept: string[] = []
  for (const row of rows.slice(start, end + 1).map((r) => constant(cut(r).trimEnd(), root))) if (row !== "" || kept.at(-1) !== "") kept.push(row)
  return { text: `${kept.join("\n")}\n` }
}

/** A row with what differs between runs replaced by one fixed value of the same shape. */
function constant(row: string, root: string): string {
  return row
    .replaceAll(`${root}/project`, "~/project")
    .replaceAll(root, "~")
    .replaceAll(path.basename(root), "forge-e2e-XXXXXX")
    .replace(/\b20\d\d-\d\d-\d\d(?!\d)/g, "2026-12-05")
    .replace(/T\d\d:\d\d:\d\d(?:\.\d+)?Z/g, "T10:00:00Z")
    .replace(/\b(run[= ])r[0-9a-z]{6,}\b/g, "$1rmif3k2q0")
    .replace(/\bjob_[0-9a-z]+_[0-9a-f]{8}\b/g, "job_mif3k2q0_5e1f00d2")
    .replace(/\bses_[0-9A-Za-z]{10,}\b/g, "ses_5e1f00d2a8ffe1q0")
    .replace(/\bmsg_[0-9A-Za-z]{10,}\b/g, "msg_243a00109001ZWohLKhTDI261F")
    .replace(/\b(the last is )[0-9a-f]{7,40}\b/g, "$1c0ffee")
    .replace(/\b[0-9a-f]{40}\b/g, "5e1f00d2a8ffe1005e1f00d2a8ffe1005e1f00d2")
    .replace(/\b[0-9a-f]{12}\b/g, "5e1f00d2a8ff")
    .replace(/\b\d\.\d s\b/g, "0.1 s")
    .replace(/ · \d+(?:\.\d+)?s$/, " · 2.0s")
}

/** Compares the capture with its file, or writes it there when captures are being taken. Resolves a problem or null. */
export function keepCapture(name: string, text: string, env: NodeJS.ProcessEnv = process.env, dir = CAPTURES_DIR): string | null {
  const file = path.join(dir, `${name}.txt`)
  if (env[UPDATE_CAPTURES_ENV] === "1") {
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(file, text)
    return null
  }
  const kept = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined
  if (kept === text) return null
  const why = kept === undefined ? `docs/captures/${name}.txt does not exist` : `the screen differs from docs/captures/${name}.txt`
  return `${why}; if the new screen is right, take it with ${UPDATE_CAPTURES_ENV}=1 (npm run e2e) and run npm run captures. The screen now:\n${text}`
}
