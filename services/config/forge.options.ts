import * as z from "zod"

// Plugin options arrive as the second half of a `["forgecharts", {...}]` plugin entry. Each option is validated on
// its own: an invalid value falls back to that option's default and the fallback is reported, never fatal.

const optionSchemas = {
  "jobs.mode": z.enum(["auto", "forge", "native"]).default("auto"),
  "jobs.keepBuiltinShell": z.boolean().default(false),
  "jobs.survive": z.enum(["never", "always", "deny"]).default("never"),
  "watchdog.mode": z.enum(["kill", "dry-run", "off"]).default("kill"),
  // Below the 60 s floor a stall budget would kill honest work: such values are raised to the floor.
  "watchdog.stallMs": z
    .number()
    .int()
    .positive()
    .transform((ms) => Math.max(ms, 60_000))
    .default(600_000),
  // The undo journal's size (each version's bytes, once); past it the oldest turns are pruned first.
  "files.journalMaxMB": z.number().int().min(1).default(256),
  // Every shell of a loop's passes runs in a bubblewrap sandbox; "off" runs them unconfined (an invalid value keeps it on).
  "loop.sandbox": z.enum(["bwrap", "off"]).default("bwrap"),
  "loop.network": z.boolean().default(false),
  // A working pass's session silent this long stalls its loop; under a minute would stop honest work: raised to it.
  "loop.stallMs": z
    .number()
    .int()
    .positive()
    .transform((ms) => Math.max(ms, 60_000))
    .default(900_000),
  // Live inspection (off by default): a ws:// or wss:// URL of an inspector (Stately's, or the page `forgecharts inspect`
  // serves), fed every lifecycle's snapshots; at most maxQueued wait for a slow or absent inspector, the rest are dropped.
  "inspect.url": z
    .string()
    .regex(/^wss?:\/\/[^\s/]+/, "expected a ws:// or wss:// URL")
    .nullable()
    .default(null),
  "inspect.maxQueued": z.number().int().min(10).max(100_000).default(1_000),
} as const

type OptionKey = keyof typeof optionSchemas
type OptionValues = { [K in OptionKey]: z.output<(typeof optionSchemas)[K]> }

export interface ForgeOptions {
  jobs: { mode: OptionValues["jobs.mode"]; keepBuiltinShell: boolean; survive: OptionValues["jobs.survive"] }
  watchdog: { mode: OptionValues["watchdog.mode"]; stallMs: number }
  files: { journalMaxMB: number }
  loop: { sandbox: OptionValues["loop.sandbox"]; network: boolean; stallMs: number }
  inspect: { url: string | null; maxQueued: number }
}

export interface ParsedOptions {
  options: ForgeOptions
  /** One line per option that fell back to its default or was not recognised. */
  warnings: string[]
}

/** One option whose value was invalid and fell back to its default. */
export interface OptionFallback {
  /** Dotted option key, e.g. "watchdog.mode". */
  key: string
  /** The same sentence parseForgeOptions warns with. */
  message: string
}

function validate(source: Record<string, unknown>): { values: Record<OptionKey, unknown>; fallbacks: OptionFallback[] } {
  const values = {} as Record<OptionKey, unknown>
  const fallbacks: OptionFallback[] = []
  for (const key of Object.keys(optionSchemas) as OptionKey[]) {
    const schema = optionSchemas[key]
    const value = lookup(source, key)
    const parsed = schema.safeParse(value)
    if (parsed.success) values[key] = parsed.data
    else {
      const fallback = schema.parse(undefined)
      values[key] = fallback
      fallbacks.push({
        key,
        message: `option ${key}: ${describe(value)} is invalid (${parsed.error.issues[0]?.message ?? "rejected"}); using the default ${JSON.stringify(fallback)}`,
      })
    }
  }
  return { values, fallbacks }
}

/** The options whose value fell back to the default, as parseForgeOptions decides (for ledgers that record them). */
export function optionFallbacks(raw: unknown): OptionFallback[] {
  return validate(normalized(raw)).fallbacks
}

export function parseForgeOptions(raw: unknown): ParsedOptions {
  const warnings: string[] = []
  const source = normalized(raw)
  if (raw !== undefined && !isRecord(raw)) warnings.push(`plugin options must be an object; got ${describe(raw)}. Using defaults.`)
  const { values, fallbacks } = validate(source)
  for (const fallback of fallbacks) warnings.push(fallback.message)
  for (const key of unknownKeys(source)) warnings.push(`option ${key} is not a Forge option; ignored`)
  const v = values as OptionValues
  return {
    options: {
      jobs: { mode: v["jobs.mode"], keepBuiltinShell: v["jobs.keepBuiltinShell"], survive: v["jobs.survive"] },
      watchdog: { mode: v["watchdog.mode"], stallMs: v["watchdog.stallMs"] },
      files: { journalMaxMB: v["files.journalMaxMB"] },
      loop: { sandbox: v["loop.sandbox"], network: v["loop.network"], stallMs: v["loop.stallMs"] },
      inspect: { url: v["inspect.url"], maxQueued: v["inspect.maxQueued"] },
    },
    warnings,
  }
}

export const defaultForgeOptions: ForgeOptions = parseForgeOptions({}).options

/** The options as an object; `inspect: "<url>"` is short for `inspect: { url: "<url>" }`. */
function normalized(raw: unknown): Record<string, unknown> {
  if (!isRecord(raw)) return {}
  return typeof raw.inspect === "string" ? { ...raw, inspect: { url: raw.inspect } } : raw
}

function lookup(source: Record<string, unknown>, key: string): unknown {
  const [group, name] = key.split(".") as [string, string]
  const section = source[group]
  return isRecord(section) ? section[name] : undefined
}

function unknownKeys(source: Record<string, unknown>): string[] {
  const known = new Set(Object.keys(optionSchemas))
  const groups = new Set([...known].map((k) => k.split(".")[0]))
  const out: string[] = []
  for (const [group, section] of Object.entries(source)) {
    if (!groups.has(group)) out.push(group)
    else if (isRecord(section)) for (const name of Object.keys(section)) if (!known.has(`${group}.${name}`)) out.push(`${group}.${name}`)
  }
  return out
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

function describe(value: unknown): string {
  return value === undefined ? "undefined" : JSON.stringify(value)
}
