import { describe, expect, it } from "vitest"
import { LoopStallWatch } from "../../../services/loop/loop.stall"

describe("the loop's stall watch", () => {
  it("reports a working session silent past the timeout, counting from its last sign of life", () => {
    const watch = new LoopStallWatch(60_000)
    watch.note("ses_a", 1_000)
    expect(watch.silent(["ses_a"], 60_999), "just under the timeout").toEqual([])
    watch.note("ses_a", 30_000)
    expect(watch.silent(["ses_a"], 89_999), "a sign of life starts the count again").toEqual([])
    expect(watch.silent(["ses_a"], 90_000)).toEqual([{ session: "ses_a", silentMs: 60_000 }])
  })

  it("counts a session it never saw from its first look (after a restart), and forgets those no longer working", () => {
    const watch = new LoopStallWatch(60_000)
    expect(watch.silent(["ses_b"], 5_000), "first seen now").toEqual([])
    expect(watch.silent(["ses_b"], 65_000)).toEqual([{ session: "ses_b", silentMs: 60_000 }])
    watch.note("ses_c", 0)
    expect(
      watch.silent(["ses_b"], 70_000).map((s) => s.session),
      "ses_c no longer works: forgotten",
    ).toEqual(["ses_b"])
    expect(watch.silent(["ses_c"], 200_000), "seen again as new").toEqual([])
  })
})
