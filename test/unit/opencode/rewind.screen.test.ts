import path from "node:path"
import { describe, expect, it } from "vitest"
import { RewindPreviews, rewindCallFields } from "../../../adapters/opencode/file/rewind.previews"
import type { RewindReport } from "../../../services/files/journal.types"

// What a forge_rewind call's TUI line says: the dialog under a confirmation says only "Call tool forge_rewind", so the
// line lists the preview the user decides on, drawn at once from the previews the model was answered.

const work = "/w"
const report: RewindReport = {
  restored: [
    { path: "/w/src/a.ts", action: "restored", bytesNow: 1536, bytesAfter: 900 },
    { path: "/w/new.txt", action: "removed", bytesNow: 300, bytesAfter: null },
    { path: "/w/gone.txt", action: "recreated", bytesNow: null, bytesAfter: 12 },
    { path: "/elsewhere/x.txt", action: "restored", bytesNow: 5, bytesAfter: 3, overrode: "forge_shell changed it" },
  ],
  unchanged: ["/w/same.txt"],
  conflicts: [{ path: "/w/c.txt", why: "somebody else changed it", bytes: 40 }],
  fingerprint: "0123456789abcdef",
}

describe("a forge_rewind call's TUI line", () => {
  it("a confirmation lists every file of its preview with its size, and what it leaves alone", () => {
    const previews = new RewindPreviews()
    previews.remember("ses_1", { turn: 2 }, { turn: "turn 2 (msg_2)", report })
    const shown = previews.find("ses_1", { turn: 2, confirm: true })
    expect(rewindCallFields({ turn: 2, confirm: true }, shown, work)).toEqual({
      decide: "rewind to turn 2 (msg_2)",
      "restore 1": `${path.join("src", "a.ts")} (1.5 KB now, 900 bytes after)`,
      "delete 1": "new.txt (300 bytes now, removed)",
      "recreate 1": "gone.txt (none now, 12 bytes after)",
      "OVERWRITE 1": "/elsewhere/x.txt (5 bytes now, 3 bytes after; not Forge's change, forge_undo brings it back)",
      "conflict 1": "c.txt (40 bytes now), left alone",
      "as it was": 1,
    })
  })

  it("a preview says nothing changes; a confirmation never previewed, or of another turn, session or force, says it is refused", () => {
    const previews = new RewindPreviews()
    previews.remember("ses_1", { turn: 2 }, { turn: "turn 2 (msg_2)", report })
    expect(rewindCallFields({ turn: 2 }, previews.find("ses_1", { turn: 2 }), work)).toEqual({ decide: "preview: nothing changes yet" })
    for (const [session, args] of [
      ["ses_1", { turn: 3, confirm: true }],
      ["ses_1", { turn: 2, force: true, confirm: true }],
      ["ses_2", { turn: 2, confirm: true }],
      ["ses_1", { message: "msg_2", confirm: true }],
    ] as const)
      expect(rewindCallFields(args, previews.find(session, args), work)).toEqual({ decide: "refused: no preview of this rewind was shown" })
    expect(rewindCallFields("junk", previews.find("ses_1", "junk"), work)).toEqual({ decide: "preview: nothing changes yet" })
  })

  it("a preview with nothing to write says so", () => {
    const empty: RewindReport = { restored: [], unchanged: [], conflicts: [], fingerprint: "f" }
    expect(rewindCallFields({ turn: 1, confirm: true }, { turn: "turn 1 (m)", report: empty }, work)).toEqual({
      decide: "rewind to turn 1 (m)",
      writes: "nothing",
    })
  })
})
