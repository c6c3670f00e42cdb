// The dialog captures of TUI scenarios (tui-mode.capture.ts): which rows are kept and what is made constant. No
// opencode runs.
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { describe, expect, it } from "vitest"
import { captureRegion, keepCapture, UPDATE_CAPTURES_ENV } from "./tui-mode.capture"

const ROOT = "/tmp/forge-e2e-4Lcxwb"
const pad = (text: string, width = 160) => text.padEnd(width)
const screen = [
  `${pad("  ┃  E2E")}E2E session`,
  `${pad("  ┃  old line ⚙ goal_complete [path=a]")}Context`,
  `${pad("")}15 tokens`,
  `${pad(`     ⚙ goal_complete [path=.opencode/goal/2026-12-04-x.md, run=rmx9o8n89 at 2026-12-04T23:59:01Z: every check passed, dir=${ROOT}/project,`)}0% used`,
  `${pad("       ran 1=`npm test`: exit code 0, 3.2 s, PASS, job=job_mx9o8n89_0a1b2c3d, ses_dbc5fff20ffeSRP5vRhZP0nTGo, base 26b556887c25]")}$0.00 spent`,
  "",
  "",
  "",
  "     ▣  Forge · Fake · 4.5s",
  "  ┃  △ Permission required",
  `${pad("  ┃   Allow once   Allow always   Reject")}• OpenCode 1.18.33`,
  "  ┃  after the dialog",
].join("\n")

describe("dialog captures", () => {
  it("keeps the rows from the last one showing `from` to the first after it showing `to`, without the sidebar, made constant", () => {
    const region = captureRegion(screen, { name: "goal-complete", from: "⚙ goal_complete [", to: "Allow once" }, ROOT)
    expect(region).toEqual({
      text: [
        "     ⚙ goal_complete [path=.opencode/goal/2026-12-05-x.md, run=rmif3k2q0 at 2026-12-05T10:00:00Z: every check passed, dir=~/project,",
        "       ran 1=`npm test`: exit code 0, 0.1 s, PASS, job=job_mif3k2q0_5e1f00d2, ses_5e1f00d2a8ffe1q0, base 5e1f00d2a8ff]",
        "",
        "     ▣  Forge · Fake · 2.0s",
        "  ┃  △ Permission required",
        "  ┃   Allow once   Allow always   Reject",
        "",
      ].join("\n"),
    })
  })

  it("says which end it could not find", () => {
    expect(captureRegion(screen, { name: "x", from: "⚙ crew_begin [", to: "Allow once" }, ROOT)).toEqual({
      problem: 'no row of the screen shows "⚙ crew_begin ["',
    })
    expect(captureRegion(screen, { name: "x", from: "⚙ goal_complete [", to: "Reject all" }, ROOT)).toEqual({
      problem: 'no row from "⚙ goal_complete [" on shows "Reject all"',
    })
  })

  it("compares with the kept file, and writes it when captures are being taken", () => {
    // A folder of its own: the docs' captures are checked against the pages beside this test.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "forge-capture-"))
    const file = path.join(dir, "dialog.txt")
    try {
      expect(keepCapture("dialog", "screen 1\n", {}, dir)).toMatch(new RegExp(`^docs/captures/dialog\\.txt does not exist; .*${UPDATE_CAPTURES_ENV}=1`))
      expect(keepCapture("dialog", "screen 1\n", { [UPDATE_CAPTURES_ENV]: "1" }, dir)).toBeNull()
      expect(fs.readFileSync(file, "utf8")).toBe("screen 1\n")
      expect(keepCapture("dialog", "screen 1\n", {}, dir)).toBeNull()
      expect(keepCapture("dialog", "screen 2\n", {}, dir)).toMatch(/^the screen differs from docs\/captures\/dialog\.txt.*The screen now:\nscreen 2\n$/s)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
