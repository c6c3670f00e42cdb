import type { GoalMachine } from "../../../machines/goal/goal.machine"
import type { GoalSnapshot } from "../../../services/goal/goal.lifecycle"
import { GoalLoop } from "../../../services/goal/goal.loop"
import { DriverClaims } from "../../../services/lifecycle/driver.claim"
import type { DriverClaimStore } from "../../../services/lifecycle/driver.claim.ports"
import type { Lifecycle } from "../../../services/lifecycle/lifecycle"
import type { Logger } from "../../../services/lifecycle/lifecycle.ports"

/**
 * A goal loop on the real lifecycle whose timers fire only when the test says: the session facts of a forge turn
 * with no draft plan, one process `p1` holding the claims (in `store`, or none), and what the loop tells the session.
 */
export function handDrivenLoop(deps: {
  lifecycle: Lifecycle<GoalMachine>
  clock: { now(): number; advance(ms: number): void }
  log: Logger
  store?: DriverClaimStore
  follow?: (goal: GoalSnapshot) => Promise<GoalSnapshot>
}) {
  const due: { fn: () => void; ms: number }[] = []
  const told: { session: string; text: string }[] = []
  const claims = new DriverClaims({ store: async () => deps.store, identity: { me: "p1", isAlive: () => true }, clock: deps.clock, log: deps.log })
  const loop = new GoalLoop({
    lifecycle: deps.lifecycle,
    clock: deps.clock,
    timers: {
      setTimeout: (fn, ms) => {
        due.push({ fn, ms })
        return { cancel: () => undefined }
      },
    },
    facts: { speaker: async () => "forge", spend: async () => ({ cost: 0, tokens: 0 }), hasDraftPlan: async () => false, isIdle: async () => true },
    claims,
    log: deps.log,
    tell: async (session, text) => void told.push({ session, text }),
    follow: deps.follow,
  })
  /** Moves the clock by `ms` and fires every timer set until now. */
  const fire = (ms: number) => {
    deps.clock.advance(ms)
    for (const { fn } of due.splice(0)) fn()
  }
  return { loop, due, told, fire }
}
