import Module, { createRequire } from "node:module"

// Loads Stately's machine extractor (@xstate/machine-extractor, the parser behind Stately's editor and VS Code
// extension). It is an xstate 4 tool: its bundle requires `xstate/lib/types` and `xstate/lib/actions`, which xstate 5
// no longer has, so it cannot even load here. It only parses source text with Babel, and touches xstate 4 only to
// re-export its types and to build action objects for builtin action calls written inside a machine config (`assign(...)`,
// `send(...)`, ...). So those two modules are answered with stand-ins: the types with nothing, each action creator with an
// error naming it, so a machine config that ever needs one fails loudly here instead of being read wrong.

export type MaybeArray<T> = T | T[]

/** A transition as the extractor returns it (xstate 4 vocabulary: the guard is `cond`). */
export interface ExtractedTransition {
  target?: MaybeArray<string>
  /** A named guard (its params when written as data), or an inline one with its source text as `type`. */
  cond?: { kind: string; type: string; params?: unknown }
}

type ExtractedTransitions = MaybeArray<ExtractedTransition>

/** The part of a state config the extractor returns that the shape comparison reads. */
export interface ExtractedState {
  id?: string
  type?: string
  initial?: string
  tags?: MaybeArray<string>
  on?: Record<string, ExtractedTransitions>
  after?: Record<string, ExtractedTransitions>
  always?: ExtractedTransitions
  onDone?: ExtractedTransitions
  /** `src` is the actor's name when `kind` is "named", else the source text of what is invoked. */
  invoke?: MaybeArray<{ id?: string; src: string; kind: string; onDone?: ExtractedTransitions; onError?: ExtractedTransitions }>
  states?: Record<string, ExtractedState>
}

interface Extractor {
  extractMachinesFromFile(source: string): { machines: Array<{ toConfig(): ExtractedState | undefined } | null> } | null
}

const STAND_INS: Record<string, object> = {
  "xstate/lib/types": {},
  "xstate/lib/actions": new Proxy(
    {},
    {
      get: (_, name) => () => {
        throw new Error(`the extractor needs xstate 4's action creator "${String(name)}": write that action as a named action in setup()`)
      },
    },
  ),
}

interface ModuleInternals {
  _resolveFilename(request: string, ...rest: unknown[]): string
  _cache: Record<string, unknown>
}

let loaded: Extractor | null = null

/** The extractor, loaded once per process with the two xstate 4 modules stood in for. */
export function loadExtractor(): Extractor {
  if (loaded) return loaded
  const internals = Module as unknown as ModuleInternals
  const resolve = internals._resolveFilename
  // Node 20 has no public hook for CommonJS resolution; only these two requests (which xstate 5 cannot answer) change.
  internals._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]): string {
    return request in STAND_INS ? `forge-stand-in:${request}` : resolve.call(this, request, ...rest)
  }
  for (const [request, exports] of Object.entries(STAND_INS)) {
    internals._cache[`forge-stand-in:${request}`] = { id: request, filename: request, loaded: true, exports, children: [], paths: [] }
  }
  try {
    loaded = createRequire(import.meta.url)("@xstate/machine-extractor") as Extractor
  } finally {
    internals._resolveFilename = resolve
  }
  return loaded
}
