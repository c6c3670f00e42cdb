import type { Confirm } from "../../services/lifecycle/lifecycle.ports"

// The dialogs a service opens while a model path runs (the goal's and the crew's): a call that asks the user is held
// open until the model's next dialog event answers it, and the SUT keeps each open dialog until then.

/** The first words of a dialog call's answer, when the user allows it and when not. */
export type DialogAnswers = { allowed: RegExp; refused: RegExp }

/** A dialog the service holds open until the model's next dialog event answers it. */
export interface OpenDialog {
  /** What the call reports once the user allowed or refused it. */
  answers: DialogAnswers
  answer: (allowed: boolean) => void
  done: Promise<unknown>
}

/** How a call that may ask the user ended: its dialog opened (and waits), or the call ended without one. */
export type Opening = { opened: true } | { opened: false; result: unknown }

/**
 * Starts a call that may ask the user; resolves once its dialog is open (handed to `held`, which keeps it until it is
 * answered) or the call ended.
 */
export function startDialogCall(answers: DialogAnswers, run: (confirm: Confirm) => Promise<unknown>, held: (dialog: OpenDialog) => void): Promise<Opening> {
  return new Promise((resolve, reject) => {
    let answer: (allowed: boolean) => void = () => undefined
    const asked = new Promise<boolean>((res) => {
      answer = res
    })
    const done = run(() => {
      held({ answers, answer, done })
      resolve({ opened: true })
      return asked
    })
    done.then((result) => resolve({ opened: false, result }), reject)
  })
}

/** The confirm of a call that must not ask the user (it is refused before it asks, or never needs to). */
export const neverAsked: Confirm = async () => {
  throw new Error("this call must not ask the user")
}

/** The text a tool call answered with. */
export function outputOf(result: unknown): string {
  return (result as { output?: string } | undefined)?.output ?? ""
}
