// The thoughtLevel word → the provider options a worker's requests carry (the chat.params hook merges them into
// `output.options`, key by key). Pure: the adapter hands in what opencode 1.18.33 puts on `chat.params`'s
// `input.model` (see `thoughtLevelInputOf`), nothing here reads config or files.
//
// Rules (the seed's "thoughtLevel word" chapter):
// - verbatim first: a word is looked up as written in the model's native levels (opencode's `model.variants` names)
//   before it is read as a canonical word; a native name passes through unchanged ("XHigh" stays "XHigh");
// - no interpolation: a word is never mapped to a "nearest" level;
// - an unknown provider family, or a model opencode says does not reason, gets nothing;
// - a word the model does not offer gets nothing and ONE finding naming both vocabularies. Where the family's
//   parameter is a level NAME (effort style), the native vocabulary is authoritative for every word, canonical ones
//   included (gpt-5 offers no "max"; sending it would fail every request). Budget tokens and the zai on/off switch
//   are valid for every model of their family, so canonical words always translate there.
// The session is never broken by a config word: whatever cannot be sent safely is not sent.

export const CANONICAL_THOUGHT_LEVELS = ["none", "low", "medium", "high", "max"] as const
export type CanonicalThoughtLevel = (typeof CANONICAL_THOUGHT_LEVELS)[number]

/** effort: OpenAI-style `reasoningEffort`; budget: Anthropic-style thinking budget; toggle: zai/Zhipu thinking on/off. */
export type ThoughtFamily = "effort" | "budget" | "toggle"

/** The published budget-style tiers (thinking tokens). */
export const THINKING_BUDGET_TOKENS: Readonly<Record<Exclude<CanonicalThoughtLevel, "none">, number>> = {
  low: 8192,
  medium: 16384,
  high: 24576,
  max: 32768,
}

export interface ThoughtLevelInput {
  /** The worker's thoughtLevel, as written in forge.json. */
  word: string
  /** opencode's provider id (`input.model.providerID`), e.g. "openai", "anthropic", "zai-coding-plan". */
  providerId: string
  /** The AI SDK package serving the model (`input.model.api.npm`); it decides the wire shape. */
  npm?: string
  /** The model id (named in findings only). */
  modelId: string
  /** The model's native level names (`Object.keys(input.model.variants)`); absent or empty = unknown. */
  nativeLevels?: readonly string[]
  /** `input.model.capabilities.reasoning`; false = nothing to tune. Absent = assume it reasons. */
  reasoning?: boolean
}

export interface ThoughtLevelParams {
  /** Provider options to merge into `chat.params`'s `output.options` (top-level keys replace). Empty: inject nothing. */
  options: Record<string, unknown>
  /** Why nothing (or less than asked) was injected, for the diagnostics log. */
  finding?: string
}

// The packages opencode 1.18.33 itself drives with `reasoningEffort` (its ProviderTransform variants), and the
// Anthropic-protocol ones that take `thinking: { type, budgetTokens }`.
const EFFORT_PACKAGES: ReadonlySet<string> = new Set([
  "@ai-sdk/openai",
  "@ai-sdk/openai-compatible",
  "@ai-sdk/azure",
  "@ai-sdk/xai",
  "@ai-sdk/groq",
  "@ai-sdk/cerebras",
  "@ai-sdk/deepinfra",
  "@ai-sdk/togetherai",
  "@ai-sdk/mistral",
])
const BUDGET_PACKAGES: ReadonlySet<string> = new Set(["@ai-sdk/anthropic", "@ai-sdk/google-vertex/anthropic"])
const OPENAI_COMPATIBLE = "@ai-sdk/openai-compatible"
// zai, zai-coding-plan, zhipuai, zhipuai-coding-plan: Zhipu's API switches thinking with a body field `thinking`.
const TOGGLE_PROVIDER = /^(zai|zhipuai)(-|$)/

/** The family whose parameter carries depth for this provider, or undefined when Forge knows none. */
export function thoughtFamily(input: { providerId: string; npm?: string }): ThoughtFamily | undefined {
  const { providerId, npm } = input
  if (npm !== undefined && BUDGET_PACKAGES.has(npm)) return "budget"
  // Zhipu behind the generic OpenAI-compatible SDK: unknown keys ride the request body as written.
  if (TOGGLE_PROVIDER.test(providerId) && (npm === undefined || npm === OPENAI_COMPATIBLE)) return "toggle"
  if (npm !== undefined) return EFFORT_PACKAGES.has(npm) ? "effort" : undefined
  if (providerId === "openai") return "effort"
  if (providerId === "anthropic") return "budget"
  return undefined
}

export function isCanonicalThoughtLevel(word: string): word is CanonicalThoughtLevel {
  return (CANONICAL_THOUGHT_LEVELS as readonly string[]).includes(word)
}

export function thoughtLevelParams(input: ThoughtLevelInput): ThoughtLevelParams {
  const { word } = input
  const model = `${input.providerId}/${input.modelId}`
  if (input.reasoning === false) {
    // "none" on a model that does not reason is already what the user asked for.
    if (word === "none") return { options: {} }
    return skip(
      `thoughtLevel "${word}": opencode lists ${model} as not reasoning (capabilities.reasoning is false), so nothing is injected. If it does reason, set "reasoning": true on the model in your opencode config.`,
    )
  }
  const family = thoughtFamily(input)
  if (family === undefined) {
    const via = input.npm === undefined ? "" : ` (${input.npm})`
    return skip(
      `thoughtLevel "${word}": Forge knows no thinking parameter for provider "${input.providerId}"${via}, so nothing is injected: ${model} runs at the provider's default depth.`,
    )
  }
  const native = input.nativeLevels !== undefined && input.nativeLevels.length > 0 ? input.nativeLevels : undefined
  const offered = native?.includes(word) ?? false
  const canonical = isCanonicalThoughtLevel(word)
  switch (family) {
    case "effort":
      if (native !== undefined ? offered : canonical) return { options: { reasoningEffort: word } }
      break
    case "budget":
      if (canonical) return { options: { thinking: budgetThinking(word) } }
      // A native name that is no tier (Anthropic's adaptive "xhigh"): opencode sends it as the `effort` option.
      if (offered) return { options: { effort: word } }
      break
    case "toggle":
      if (word === "none") return { options: { thinking: { type: "disabled" } } }
      // Native GLM levels (glm-5.2's high/max in 1.18.33) ride reasoning_effort; thinking stays on by default.
      if (offered) return { options: { reasoningEffort: word } }
      // clear_thinking: false is opencode's own default for zai/zhipuai; replacing `thinking` must not drop it.
      if (canonical) return { options: { thinking: { type: "enabled", clear_thinking: false } } }
      break
  }
  return skip(unofferedFinding(word, model, native))
}

function budgetThinking(word: CanonicalThoughtLevel): Record<string, unknown> {
  if (word === "none") return { type: "disabled" }
  return { type: "enabled", budgetTokens: THINKING_BUDGET_TOKENS[word] }
}

function skip(finding: string): ThoughtLevelParams {
  return { options: {}, finding }
}

function unofferedFinding(word: string, model: string, native: readonly string[] | undefined): string {
  const theirs = native === undefined ? `${model} publishes no native levels` : `${model}'s native levels: ${native.join("|")}`
  return `thoughtLevel "${word}" is not a level ${model} offers — canonical words: ${CANONICAL_THOUGHT_LEVELS.join("|")}; ${theirs}. Nothing is injected: it runs at the provider's default depth.`
}

/**
 * The slice of `chat.params`'s `input.model` the translation reads (opencode 1.18.33's runtime Provider.Model:
 * `variants` maps each native level name to the options opencode would send for it; disabled ones are already gone).
 */
export interface ThoughtModelFacts {
  id: string
  providerID: string
  api: { npm: string }
  capabilities: { reasoning: boolean }
  variants?: Readonly<Record<string, unknown>>
}

export function nativeLevelsOf(model: Pick<ThoughtModelFacts, "variants">): readonly string[] {
  return Object.keys(model.variants ?? {})
}

/** The translation's input for `word` on the model a `chat.params` call names. */
export function thoughtLevelInputOf(word: string, model: ThoughtModelFacts): ThoughtLevelInput {
  return {
    word,
    providerId: model.providerID,
    npm: model.api.npm,
    modelId: model.id,
    nativeLevels: nativeLevelsOf(model),
    reasoning: model.capabilities.reasoning,
  }
}
