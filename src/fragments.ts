import type { ForgeFragment, FragmentContext } from "../adapters/opencode/forge.fragment"
import { type Lazy, ready } from "../adapters/opencode/lazy"
import type { ForgeModule, ModuleHandles, ModuleName, StartFacts } from "./forge.module"
import { FORGE_MODULES } from "./modules"

// The plugin's fragments: every module's start-time part, in the list's order (src/modules.ts). This file is part of
// what opencode loads at start: it imports tool definitions and hook shells, never the services behind them, which
// arrive lazily (src/composition.ts).

/** Each module's handle, built on first use; a module without one is left out (a harness that has no such surface). */
export type ModuleHandleSource = <N extends ModuleName>(name: N) => Lazy<ModuleHandles[N]> | undefined

/** The handles a harness gives by name (tests and embedders that build only some modules). */
export function handlesOf(handles: { readonly [N in ModuleName]?: Lazy<ModuleHandles[N]> }): ModuleHandleSource {
  return (name) => handles[name]
}

export function forgeFragments(handles: ModuleHandleSource, start: StartFacts) {
  return (context: FragmentContext): ForgeFragment[] => FORGE_MODULES.flatMap((module) => fragmentOf(module, handles, context, start))
}

function fragmentOf<N extends ModuleName>(module: ForgeModule<N>, handles: ModuleHandleSource, context: FragmentContext, start: StartFacts): ForgeFragment[] {
  // A module that builds nothing has nothing to wait for.
  const handle = (module.kind === "surface" && module.scope === "none" ? ready(undefined) : handles(module.name)) as Lazy<ModuleHandles[N]> | undefined
  return handle === undefined ? [] : [module.fragment(context, handle, start)]
}
