import { describe, expect, it } from "vitest"
import {
  CANONICAL_THOUGHT_LEVELS,
  type ThoughtLevelInput,
  nativeLevelsOf,
  thoughtFamily,
  thoughtLevelInputOf,
  thoughtLevelParams,
} from "../../../services/workers/thought.level"

const openai = { providerId: "openai", npm: "@ai-sdk/openai", modelId: "gpt-5" }
const compatible = { providerId: "qwen-local", npm: "@ai-sdk/openai-compatible", modelId: "qwen3-coder" }
const anthropic = { providerId: "anthropic", npm: "@ai-sdk/anthropic", modelId: "claude-sonnet-4" }
const zai = { providerId: "zai-coding-plan", npm: "@ai-sdk/openai-compatible", modelId: "glm-5.3" }

function params(input: Omit<ThoughtLevelInput, "word">, word: string) {
  return thoughtLevelParams({ ...input, word })
}

/** The one finding names both vocabularies: the canonical words and the model's own. */
function expectUnoffered(result: { options: Record<string, unknown>; finding?: string }, word: string, native: string) {
  expect(result.options).toEqual({})
  expect(result.finding).toContain(`"${word}"`)
  expect(result.finding).toContain("none|low|medium|high|max")
  expect(result.finding).toContain(native)
}

describe("thoughtFamily", () => {
  it.each([
    [{ providerId: "openai", npm: "@ai-sdk/openai" }, "effort"],
    [{ providerId: "openai" }, "effort"],
    [{ providerId: "my-vllm", npm: "@ai-sdk/openai-compatible" }, "effort"],
    [{ providerId: "azure", npm: "@ai-sdk/azure" }, "effort"],
    [{ providerId: "anthropic", npm: "@ai-sdk/anthropic" }, "budget"],
    [{ providerId: "anthropic" }, "budget"],
    [{ providerId: "google-vertex-anthropic", npm: "@ai-sdk/google-vertex/anthropic" }, "budget"],
    [{ providerId: "zai", npm: "@ai-sdk/openai-compatible" }, "toggle"],
    [{ providerId: "zai-coding-plan", npm: "@ai-sdk/openai-compatible" }, "toggle"],
    [{ providerId: "zhipuai" }, "toggle"],
    [{ providerId: "zhipuai-coding-plan", npm: "@ai-sdk/openai-compatible" }, "toggle"],
    // Zhipu's Anthropic-protocol endpoint speaks the Anthropic SDK's options: the package decides the wire shape.
    [{ providerId: "zai-coding-plan", npm: "@ai-sdk/anthropic" }, "budget"],
  ] as const)("%o → %s", (input, family) => {
    expect(thoughtFamily(input)).toBe(family)
  })

  it.each([
    { providerId: "google", npm: "@ai-sdk/google" },
    { providerId: "openrouter", npm: "@openrouter/ai-sdk-provider" },
    { providerId: "amazon-bedrock", npm: "@ai-sdk/amazon-bedrock" },
    // A package Forge does not know wins over a familiar provider id.
    { providerId: "openai", npm: "@ai-sdk/github-copilot" },
    { providerId: "mystery" },
    // Not a zai provider, only a look-alike name.
    { providerId: "bizai", npm: "@ai-sdk/google" },
  ])("%o → unknown", (input) => {
    expect(thoughtFamily(input)).toBeUndefined()
  })
})

describe("thoughtLevelParams — effort style", () => {
  it.each(CANONICAL_THOUGHT_LEVELS)("canonical %s → reasoningEffort as written (vocabulary unknown)", (word) => {
    expect(params(compatible, word)).toEqual({ options: { reasoningEffort: word } })
    expect(params(openai, word)).toEqual({ options: { reasoningEffort: word } })
  })

  it("a native level name passes through verbatim, case and all", () => {
    const result = params({ ...compatible, nativeLevels: ["low", "High", "XHigh"] }, "XHigh")
    expect(result).toEqual({ options: { reasoningEffort: "XHigh" } })
  })

  it("a canonical word the model's known vocabulary lacks: nothing, one finding naming both vocabularies", () => {
    const native = ["minimal", "low", "medium", "high"]
    const result = params({ ...openai, nativeLevels: native }, "max")
    expectUnoffered(result, "max", "minimal|low|medium|high")
    expect(result.finding).toContain("openai/gpt-5")
  })

  it("no interpolation: a near miss of a native name is not adjusted to it", () => {
    expectUnoffered(params({ ...compatible, nativeLevels: ["low", "XHigh"] }, "xhigh"), "xhigh", "low|XHigh")
    expectUnoffered(params({ ...compatible, nativeLevels: ["low", "high"] }, "medium"), "medium", "low|high")
  })

  it("a non-canonical word with no native vocabulary known is not sent (it could be a typo the API rejects)", () => {
    const result = params(compatible, "XHigh")
    expectUnoffered(result, "XHigh", "publishes no native levels")
  })

  it("an empty variants map means the vocabulary is unknown, not empty", () => {
    expect(params({ ...openai, nativeLevels: [] }, "high")).toEqual({ options: { reasoningEffort: "high" } })
  })

  it("none is a level like any other: sent when offered, refused when the vocabulary lacks it", () => {
    expect(params({ ...openai, nativeLevels: ["none", "low"] }, "none")).toEqual({ options: { reasoningEffort: "none" } })
    expectUnoffered(params({ ...openai, nativeLevels: ["low", "high"] }, "none"), "none", "low|high")
  })
})

describe("thoughtLevelParams — budget style", () => {
  it.each([
    ["low", 8192],
    ["medium", 16384],
    ["high", 24576],
    ["max", 32768],
  ] as const)("%s → the published %d-token tier", (word, budgetTokens) => {
    expect(params(anthropic, word)).toEqual({ options: { thinking: { type: "enabled", budgetTokens } } })
  })

  it("none → thinking off", () => {
    expect(params(anthropic, "none")).toEqual({ options: { thinking: { type: "disabled" } } })
  })

  it("canonical words translate whatever native presets the model lists (a budget is valid for every model)", () => {
    const result = params({ ...anthropic, nativeLevels: ["high", "max"] }, "low")
    expect(result).toEqual({ options: { thinking: { type: "enabled", budgetTokens: 8192 } } })
  })

  it("a native name that is no tier passes verbatim as Anthropic's effort option", () => {
    const result = params({ ...anthropic, modelId: "claude-opus-4-6", nativeLevels: ["low", "medium", "high", "xhigh", "max"] }, "xhigh")
    expect(result).toEqual({ options: { effort: "xhigh" } })
  })

  it("a word neither canonical nor native: nothing, one finding naming both vocabularies", () => {
    expectUnoffered(params({ ...anthropic, nativeLevels: ["high", "max"] }, "ultra"), "ultra", "high|max")
  })
})

describe("thoughtLevelParams — toggle style (zai / Zhipu GLM)", () => {
  it("none → thinking disabled", () => {
    expect(params(zai, "none")).toEqual({ options: { thinking: { type: "disabled" } } })
  })

  it.each(["low", "medium", "high", "max"])("%s → thinking enabled (keeping opencode's clear_thinking: false)", (word) => {
    expect(params(zai, word)).toEqual({ options: { thinking: { type: "enabled", clear_thinking: false } } })
  })

  it("a native GLM level passes verbatim as reasoningEffort (glm-5.2's high/max in opencode 1.18.33)", () => {
    const glm52 = { ...zai, modelId: "glm-5.2", nativeLevels: ["high", "max"] }
    expect(params(glm52, "max")).toEqual({ options: { reasoningEffort: "max" } })
    // Not native there, still canonical: the switch.
    expect(params(glm52, "low")).toEqual({ options: { thinking: { type: "enabled", clear_thinking: false } } })
    expect(params(glm52, "none")).toEqual({ options: { thinking: { type: "disabled" } } })
  })

  it("a word neither canonical nor native: nothing, one finding", () => {
    expectUnoffered(params({ ...zai, nativeLevels: ["high", "max"] }, "deep"), "deep", "high|max")
  })
})

describe("thoughtLevelParams — nothing to tune", () => {
  it("an unknown family injects nothing, and says so once", () => {
    const result = params({ providerId: "google", npm: "@ai-sdk/google", modelId: "gemini-3-pro", nativeLevels: ["low", "high"] }, "high")
    expect(result.options).toEqual({})
    expect(result.finding).toContain('"google"')
    expect(result.finding).toContain("@ai-sdk/google")
  })

  it("a model opencode lists as not reasoning gets nothing; none is already satisfied there", () => {
    const plain = { ...compatible, reasoning: false }
    const result = params(plain, "high")
    expect(result.options).toEqual({})
    expect(result.finding).toContain('"reasoning": true')
    expect(params(plain, "none")).toEqual({ options: {} })
  })
})

describe("reading chat.params' input.model", () => {
  // The runtime shape of opencode 1.18.33's Provider.Model, as chat.params receives it (trimmed).
  const model = {
    id: "gpt-5",
    providerID: "openai",
    api: { id: "gpt-5", url: "", npm: "@ai-sdk/openai" },
    capabilities: { reasoning: true, temperature: false },
    variants: { minimal: { reasoningEffort: "minimal" }, low: { reasoningEffort: "low" }, high: { reasoningEffort: "high" } },
  }

  it("native levels are the variant names", () => {
    expect(nativeLevelsOf(model)).toEqual(["minimal", "low", "high"])
    expect(nativeLevelsOf({})).toEqual([])
  })

  it("builds the translation's input from the model", () => {
    expect(thoughtLevelInputOf("high", model)).toEqual({
      word: "high",
      providerId: "openai",
      npm: "@ai-sdk/openai",
      modelId: "gpt-5",
      nativeLevels: ["minimal", "low", "high"],
      reasoning: true,
    })
    expect(thoughtLevelParams(thoughtLevelInputOf("minimal", model))).toEqual({ options: { reasoningEffort: "minimal" } })
    expect(thoughtLevelParams(thoughtLevelInputOf("medium", model)).options).toEqual({})
  })
})
