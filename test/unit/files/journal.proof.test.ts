// The proof the undo journal asks before it writes, over in-memory ports: an unbroken chain of changes, another
// session's or a shell's change in the range taken as a conflict, and a removed file restored with its mode.
import { beforeEach, describe, expect, it } from "vitest"
import { REWIND_TOOL } from "../../../services/files/journal"
import { change, clock, content, files, freshJournal, journal, refusal, text } from "./journal.helpers"

beforeEach(freshJournal)

describe("the proof before a write", () => {
  it("refuses an undo whose chain has a gap, even when the disk holds what the change left", async () => {
    await change("/w/a.txt", "a")
    files.files.set("/w/a.txt", text("hand"))
    await change("/w/a.txt", "b", { tool: "forge_patch" })
    await journal.undo("/w/a.txt")
    expect(content("/w/a.txt")).toBe("hand")
    // Somebody puts back exactly what the first write left: the disk matches it, but the chain does not.
    files.files.set("/w/a.txt", text("a"))
    const error = await refusal(journal.undo("/w/a.txt"))
    expect(error.message).toMatch(/the file changed since by someone else — it was changed outside Forge between forge_write at .* and forge_patch at /)
    expect(content("/w/a.txt")).toBe("a")
  })

  it("takes another session's change inside the range as a conflict of this session's rewind; force overrides it", async () => {
    await change("/w/a.txt", "base", { turn: "turn_0" })
    clock.time += 1_000
    const since = clock.time
    await change("/w/a.txt", "mine", { turn: "turn_1" })
    await change("/w/a.txt", "theirs", { session: "ses_2", turn: "turn_9" })
    await change("/w/a.txt", "mine again", { turn: "turn_1" })
    const report = await journal.rewind({ session: "ses_1", since })
    expect(report.conflicts).toEqual([
      { path: "/w/a.txt", why: expect.stringMatching(/^another session \(ses_2\) changed it with forge_write at /), bytes: 10 },
    ])
    expect(content("/w/a.txt")).toBe("mine again")
    const forced = await journal.rewind({ session: "ses_1", since, force: true })
    expect(forced.restored).toEqual([
      { path: "/w/a.txt", action: "restored", bytesNow: 10, bytesAfter: 4, overrode: expect.stringMatching(/^another session \(ses_2\)/) },
    ])
    expect(content("/w/a.txt")).toBe("base")
    // The forced rewind is undoable: what it replaced comes back.
    expect((await journal.undo("/w/a.txt")).reverted.tool).toBe(REWIND_TOOL)
    expect(content("/w/a.txt")).toBe("mine again")
  })

  it("journals a seen change only for a file the journal knows, and only when it holds something else", async () => {
    expect(await journal.observe({ session: "ses_1", tool: "forge_shell", path: "/w/new.txt", now: { bytes: text("x"), mode: 0o100644 } })).toBeUndefined()
    await change("/w/a.txt", "a")
    expect(await journal.observe({ session: "ses_1", tool: "forge_shell", path: "/w/a.txt", now: { bytes: text("a"), mode: 0o100644 } })).toBeUndefined()
    files.files.set("/w/a.txt", text("sh"))
    const seen = await journal.observe({ session: "ses_1", tool: "forge_shell", path: "/w/a.txt", now: await files.state("/w/a.txt") })
    expect(seen).toMatchObject({ tool: "forge_shell", observed: true })
    // A rewind across it leaves the file alone; an undo refuses to take the shell's change back.
    const report = await journal.rewind({ session: "ses_1", since: 0 })
    expect(report.conflicts).toEqual([
      { path: "/w/a.txt", why: expect.stringMatching(/^forge_shell changed it at .*, outside Forge's file tools; it was left alone/), bytes: 2 },
    ])
    expect((await refusal(journal.undo("/w/a.txt"))).message).toMatch(/forge_shell changed it at .* Forge does not undo it/)
    expect(content("/w/a.txt")).toBe("sh")
  })

  it("restores a removed file with its mode", async () => {
    await files.write("/w/run.sh", text("#!/bin/sh\n"), 0o100755)
    const script = await files.state("/w/run.sh")
    await files.remove("/w/run.sh")
    await journal.record({ session: "ses_1", tool: "forge_remove", path: "/w/run.sh", before: script?.bytes, beforeMode: script?.mode, after: undefined })
    await journal.undo("/w/run.sh")
    expect(files.modes.get("/w/run.sh")).toBe(0o100755)
  })
})
