// The stream of tool calls both gates are timed over: the same calls in the same order, built before any timing.

/** What `tool.execute.before` receives as its first argument. */
export interface GateInput {
  tool: string
  sessionID: string
  callID: string
}

/** Write tools a draft refuses (builtin and Forge's own) mixed with read-only ones it lets through. */
export const STREAM_TOOLS = ["bash", "write", "read", "edit", "grep", "forge_shell", "plan_read"] as const

/** A seeded generator (mulberry32), so every run times the same stream. */
function seeded(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** `length` calls, each a random tool of STREAM_TOOLS in a random one of `sessions`. */
export function buildCallStream(sessions: readonly string[], length: number, seed = 20261130): GateInput[] {
  const next = seeded(seed)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T
  return Array.from({ length }, (_, i) => ({ tool: pick(STREAM_TOOLS), sessionID: pick(sessions), callID: `call_${i}` }))
}
