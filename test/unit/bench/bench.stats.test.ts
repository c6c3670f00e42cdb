import { describe, expect, it } from "vitest"
import { medianInterval } from "../../../bench/bench.stats"

// The startup bench decides a target only when the median's 95 % interval lies on one side of it; the interval's
// ranks are those of the published tables for the sign test (e.g. 6th and 15th of 20).
describe("medianInterval", () => {
  const ranks = (n: number) => Array.from({ length: n }, (_, i) => i + 1)

  it("takes the order statistics the binomial tail allows", () => {
    expect(medianInterval(ranks(10))).toMatchObject({ low: 2, high: 9 })
    expect(medianInterval(ranks(20))).toMatchObject({ low: 6, high: 15 })
    expect(medianInterval(ranks(40))).toMatchObject({ low: 14, high: 27 })
    expect(medianInterval(ranks(100))).toMatchObject({ low: 40, high: 61 })
  })

  it("states the confidence it carries, at least the one asked for", () => {
    expect(medianInterval(ranks(20)).confidence).toBeCloseTo(0.9586, 4)
    expect(medianInterval(ranks(20), 0.99)).toMatchObject({ low: 4, high: 17 })
  })

  it("sorts what it is given and falls back to the whole range when too few values exist", () => {
    expect(medianInterval([9, 1, 5, 3, 7])).toEqual({ low: 1, high: 9, confidence: 0.9375 })
    expect(medianInterval([3.5])).toMatchObject({ low: 3.5, high: 3.5 })
    expect(() => medianInterval([])).toThrow("empty sample")
  })
})
