import type { ForgeComposition } from "./composition"

// One composition per workspace per process. opencode may create two plugin instances for one directory (its TUI
// does, a moment apart), and two compositions on one database behave as two processes: the second's restore takes up
// what the first holds and closes the dialog the first is showing. The plugin instances of a process share one, kept
// in a registry on globalThis (a plugin module loaded twice still finds it), and the last instance to go closes it.

interface Shared {
  composition: Promise<ForgeComposition>
  users: number
}

const REGISTRY = Symbol.for("forgecharts.compositions")

function registry(): Map<string, Shared> {
  const holder = globalThis as { [REGISTRY]?: Map<string, Shared> }
  holder[REGISTRY] ??= new Map()
  return holder[REGISTRY]
}

/** One instance's hold on the workspace's composition: release it once, at the instance's dispose. */
export interface CompositionHold {
  composition: Promise<ForgeComposition>
  release(): Promise<void>
}

/** The workspace's composition in this process: the one already there, or `create`'s. */
export function acquireComposition(workspace: string, create: () => Promise<ForgeComposition>): CompositionHold {
  const compositions = registry()
  let shared = compositions.get(workspace)
  if (shared === undefined) {
    const made: Shared = { composition: create(), users: 0 }
    compositions.set(workspace, made)
    // A composition that fails to build is not kept: the next instance tries again.
    made.composition.catch(() => {
      if (compositions.get(workspace) === made) compositions.delete(workspace)
    })
    shared = made
  }
  const held = shared
  held.users += 1
  let released = false
  return {
    composition: held.composition,
    // The last hold released closes it; a hold on one that failed, or was replaced since, touches no other.
    async release() {
      if (released) return
      released = true
      held.users -= 1
      if (held.users > 0) return
      if (compositions.get(workspace) === held) compositions.delete(workspace)
      await (await held.composition.catch(() => undefined))?.close()
    },
  }
}
