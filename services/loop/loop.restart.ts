import { type DriverFacts, mayDrive } from "../../machines/driver.claim"
import type { LoopEvent, LoopMachine, LoopOutcome, LoopResumeInput } from "../../machines/loop/loop.machine"
import { loopStatusOf } from "../../machines/loop/loop.status"
import type { DriverClaims } from "../lifecycle/driver.claim"
import type { Lifecycle } from "../lifecycle/lifecycle"
import type { LoopSnapshot } from "./loop.lifecycle"
import type { LoopSandboxes } from "./loop.ports"
import { loopRestartedText } from "./loop.text"

/** The loop lifecycle's machine id: its instances' driver claims are kept under it. */
export const LOOP_CLAIMS = "loop"

export interface LoopRestartDeps {
  lifecycle: Lifecycle<LoopMachine>
  claims: DriverClaims
  sandboxes: LoopSandboxes
  at: number
  /** The loop by name: held by this process, or finished and on record. Throws when there is none. */
  namedOrFinished(name: string): Promise<LoopSnapshot>
}

/**
 * loop_status {restart}: a loop that has not completed starts again where it stood, with its identity, plan, section
 * progress and findings kept and new budgets. A running loop (it may only look stuck) takes `force`: its pass is
 * stopped and its phase starts again with a new session (the machine's restart gate). A finished one is born again
 * from its record, through the birth gate (never a completed loop). Either way the restarting process drives it.
 */
export async function restartLoop(deps: LoopRestartDeps, name: string, force: boolean): Promise<string> {
  const { lifecycle, claims, at } = deps
  const held = lifecycle.snapshot(name)
  if (held?.hasTag("live") === true) {
    const restart = (driver: DriverFacts): LoopEvent => ({ type: "loop.restart", force, driver, at })
    // The claim is taken only if the machine's restart gate takes it; a refused restart is the machine's words.
    const { facts } = await claims.drive(LOOP_CLAIMS, name, (driver) => lifecycle.can(name, restart(driver)))
    return loopRestartedText(await lifecycle.dispatch(name, restart(facts)), force)
  }
  const ended = held ?? (await deps.namedOrFinished(name))
  const sandboxProblem = ended.context.sandbox.mode === "off" ? null : await deps.sandboxes.problem()
  const input = (loop: LoopSnapshot): LoopResumeInput => ({
    resume: { ended: loopStatusOf(loop.value) as LoopOutcome, context: loop.context },
    sandboxProblem,
    driver: claims.me,
    at,
  })
  // The birth gate first (it throws the refusal): nothing is claimed or made for a refused restart.
  lifecycle.birth(input(ended))
  await claims.drive(LOOP_CLAIMS, name, mayDrive)
  try {
    return loopRestartedText(await lifecycle.rebirth(name, "loop.restart", input), force)
  } catch (error) {
    await claims.release(LOOP_CLAIMS, name).catch(() => undefined)
    throw error
  }
}
