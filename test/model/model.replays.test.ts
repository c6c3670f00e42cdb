import { describe, expect, it } from "vitest"
import { longestReplays } from "../../testing/model.replays"

const replay = (label: string, ...events: { type: string; n?: number }[]) => ({ label, events })

describe("longestReplays", () => {
  it("drops a replay that another starts with, and a repeated one, keeping the order", () => {
    const kept = longestReplays([
      replay("initial"),
      replay("a", { type: "a" }),
      replay("a b", { type: "a" }, { type: "b" }),
      replay("b", { type: "b" }),
      replay("a b again", { type: "a" }, { type: "b" }),
      replay("a c", { type: "a" }, { type: "c" }),
    ])
    expect(kept.map((r) => r.label)).toEqual(["a b", "b", "a c"])
  })

  it("keeps replays that only share a beginning, or differ in an event's payload", () => {
    const kept = longestReplays([
      replay("a1 b", { type: "a", n: 1 }, { type: "b" }),
      replay("a2", { type: "a", n: 2 }),
      replay("b a1", { type: "b" }, { type: "a", n: 1 }),
    ])
    expect(kept.map((r) => r.label)).toEqual(["a1 b", "a2", "b a1"])
  })

  it("compares events one by one, not as joined text", () => {
    const kept = longestReplays([replay("ab", { type: "ab" }), replay("a b", { type: "a" }, { type: "b" })])
    expect(kept.map((r) => r.label)).toEqual(["ab", "a b"])
  })

  it("keeps every replay a longer one does not contain", () => {
    const all = [replay("x", { type: "x" }), replay("x y", { type: "x" }, { type: "y" }), replay("z", { type: "z" })]
    const kept = longestReplays(all)
    for (const dropped of all.filter((r) => !kept.includes(r)))
      expect(kept.some((k) => JSON.stringify(k.events.slice(0, dropped.events.length)) === JSON.stringify(dropped.events))).toBe(true)
  })
})
