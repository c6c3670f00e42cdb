import type { LoopContext } from "../../machines/loop/loop.machine"
import type { LoopUsage } from "./loop.ports"

// What a loop's passes spent, per role, for loop_status: each session's model turns (its subagents' included) as
// opencode counts them, summed over the sessions the loop opened for that role.

const ROLE_NAMES = { coder: "coder", auditor: "auditor", post_action: "post-action" } as const

/** One line per role the loop opened sessions for, oldest role first; a session whose usage cannot be read says so. */
export async function loopUsageText(context: LoopContext, usageOf: (sessionId: string) => Promise<LoopUsage>): Promise<string[]> {
  const byRole = new Map<string, { sessions: number; total: LoopUsage; unread: number }>()
  for (const session of context.sessions) {
    const role = context.roles[session]
    const name = role === undefined ? "earlier passes" : ROLE_NAMES[role]
    const entry = byRole.get(name) ?? { sessions: 0, total: noUsage(), unread: 0 }
    byRole.set(name, entry)
    entry.sessions += 1
    try {
      add(entry.total, await usageOf(session))
    } catch {
      entry.unread += 1
    }
  }
  return [...byRole].map(([name, { sessions, total, unread }]) => {
    const passes = `${sessions} session${sessions === 1 ? "" : "s"}`
    const tokens = `${count(total.input)} tokens in, ${count(total.output)} out (reasoning ${count(total.reasoning)}, cache ${count(total.cacheRead)} read, ${count(total.cacheWrite)} written)`
    const missing = unread === 0 ? "" : `; ${unread} not read (opencode could not list their messages)`
    return `  ${name}: ${passes}, ${tokens}, cost ${total.cost.toFixed(4)}${missing}`
  })
}

function noUsage(): LoopUsage {
  return { input: 0, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0, cost: 0 }
}

function add(total: LoopUsage, usage: LoopUsage): void {
  total.input += usage.input
  total.output += usage.output
  total.reasoning += usage.reasoning
  total.cacheRead += usage.cacheRead
  total.cacheWrite += usage.cacheWrite
  total.cost += usage.cost
}

const count = (n: number): string => n.toLocaleString("en-US")
