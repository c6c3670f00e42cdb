import { type AnyStateMachine, type AnyStateNode, StateMachine } from "xstate"

// What a machine names must be there when it runs: xstate looks a guard or an actor up by name only when the transition
// is taken or the state entered, so a name setup() does not implement fails then, not when the machine is built. The
// names inside and/or/not count too, whether written in a transition or in setup()'s guards (`canArm: and([...])`).
// And a machine that invokes a machine invokes one of machineCatalog, whose own file the extractor comparison reads.

/** The guard names a guard refers to, those inside an and/or/not included (a combinator carries its `guards`). */
function guardNames(guard: unknown): string[] {
  if (typeof guard === "string") return [guard]
  if (typeof guard === "function") {
    const inner = (guard as { guards?: unknown }).guards
    return Array.isArray(inner) ? inner.flatMap(guardNames) : []
  }
  if (guard !== null && typeof guard === "object" && typeof (guard as { type?: unknown }).type === "string") return [(guard as { type: string }).type]
  return []
}

function allNodes(node: AnyStateNode): AnyStateNode[] {
  return [node, ...Object.values(node.states as Record<string, AnyStateNode>).flatMap(allNodes)]
}

/** Every guard or actor name the machine refers to that it does not implement, and every invoked machine not in `catalog`. */
export function unresolvedReferences(machine: AnyStateMachine, catalog: readonly AnyStateMachine[]): string[] {
  const problems: string[] = []
  const guards = machine.implementations.guards as Record<string, unknown>
  const actors = machine.implementations.actors as Record<string, unknown>
  const checked = new Set<string>()
  const checkGuard = (name: string, where: string): void => {
    if (!(name in guards)) return void problems.push(`${machine.id}: ${where} names the guard "${name}", which setup() does not implement`)
    if (checked.has(name)) return
    checked.add(name)
    for (const inner of guardNames(guards[name])) checkGuard(inner, `the guard "${name}"`)
  }
  for (const node of allNodes(machine.root)) {
    const lists: Array<[string, ReadonlyArray<{ guard?: unknown }>]> = [...(node.transitions as Map<string, Array<{ guard?: unknown }>>)]
    if (node.always?.length) lists.push(["(always)", node.always])
    for (const [event, candidates] of lists) {
      candidates.forEach((t, i) => {
        for (const name of guardNames(t.guard)) checkGuard(name, `${node.id} on ${event} #${i}`)
      })
    }
    const configured = [node.config.invoke ?? []].flat() as Array<{ src?: unknown }>
    node.invoke.forEach((invoke, i) => {
      if (typeof configured[i]?.src !== "string" || typeof invoke.src !== "string") return
      const actor = actors[invoke.src]
      if (actor === undefined) problems.push(`${machine.id}: ${node.id} invokes "${invoke.src}", which setup() does not provide`)
      else if (actor instanceof StateMachine && !catalog.includes(actor)) {
        problems.push(`${machine.id}: ${node.id} invokes the machine "${actor.id}", which is not in machineCatalog (machines/index.ts)`)
      }
    })
  }
  return problems
}
