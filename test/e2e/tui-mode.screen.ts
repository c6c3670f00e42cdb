// The TUI's screen as text: waiting until it shows (or stops showing) something, printing it, and saving each
// turn's capture under <root>/screens/ (kept with --keep).
import fs from "node:fs"
import path from "node:path"
import { textProblems } from "./text-match"
import { sleep } from "./processes"
import type { TextMatch } from "./scenario.schema"

const POLL_MS = 200

/**
 * Captures the screen until it satisfies `match` (and `also`, what else it must show, when given) or `deadline`
 * passes; resolves with the last capture and what it still lacked (empty when it held). A wait that runs out resolves
 * with the last capture that showed anything: a redraw caught half-way (a blank pane) says nothing of the screen. A
 * capture that fails (the TUI is gone) ends the wait with that failure.
 */
export async function waitForScreen(
  capture: () => Promise<string>,
  match: TextMatch,
  deadline: number,
  also?: (screen: string) => string | null,
): Promise<{ screen: string; problems: string[] }> {
  let drawn: string | undefined
  for (;;) {
    const screen = await capture()
    if (screen.trim() !== "") drawn = screen
    const lacking = textProblems(screen, match)
    const more = lacking.length === 0 ? (also?.(screen) ?? null) : null
    const problems = more === null ? lacking : [more]
    if (problems.length === 0) return { screen, problems }
    if (Date.now() >= deadline) return { screen: drawn ?? screen, problems }
    await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())))
  }
}

/** The screen for progress output: each line behind a `|` margin, the blank lines at its end dropped. */
export function formatScreen(screen: string, indent = "    "): string {
  const lines = screen.replace(/\s+$/, "").split("\n")
  return lines.map((line) => `${indent}|${line}`.trimEnd()).join("\n")
}

/** Writes `<root>/screens/<name>.txt`. */
export function saveScreen(root: string, name: string, screen: string): void {
  const dir = path.join(root, "screens")
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, `${name}.txt`), `${screen}\n`)
}
