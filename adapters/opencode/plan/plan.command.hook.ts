import { statusLabel } from "../../../services/plan/plan.label"
import { planConfirmText, planDiscardText, planListText, planNothingText, planResumeText } from "../prompts/plan.command"
import type { HostPlansHandle } from "./plan.handle"

/** A text part of a command turn. `synthetic`: sent to the model, hidden in the TUI; `ignored`: shown, never sent. */
export interface CommandTextPart {
  type: string
  text?: string
  synthetic?: boolean
  ignored?: boolean
}

/** What a /plan turn says: `model` is the instruction only the model reads, `user` what the user's message shows. */
export interface CommandTurnText {
  model: string
  user: string
}

/**
 * /plan's sub-commands are the user's own actions, so the plugin carries them out itself and rewrites the turn's
 * text to tell the model what happened. `/plan <task>` keeps its template, which only the model reads.
 */
export async function handlePlanCommand(plans: HostPlansHandle, session: string, rawArguments: string, parts: CommandTextPart[]): Promise<void> {
  // `opencode run --command` re-quotes arguments that contain spaces.
  const argument = rawArguments
    .trim()
    .replace(/^"(.*)"$/s, "$1")
    .trim()
  const text = await subcommandText(plans, session, argument.toLowerCase())
  if (text !== undefined) presentCommandTurn(parts, text)
  else hideCommandTemplate(parts, `/plan ${argument}`)
}

async function subcommandText(plans: HostPlansHandle, session: string, argument: string): Promise<CommandTurnText | undefined> {
  const nothing = (what: string) => ({ model: planNothingText(what), user: `/plan ${argument}`.trimEnd() + `\n${what}` })
  if (argument === "" || argument === "list") {
    const { plans: overview, unreadable } = await plans.queries.overview()
    if (overview.length === 0 && unreadable.length === 0) return nothing("There are no unfinished plans in this workspace. Start one with /plan <task>.")
    const notes = await plans.notes.forPlans(overview.map((p) => p.planPath))
    const listing = [
      ...overview.flatMap((p) => [
        `- ${p.planPath} [${statusLabel(p)}] ${p.ticked}/${p.tasks} tasks — ${p.title}${p.session === session ? " (this session)" : ""}`,
        ...(notes.get(p.planPath) ?? []).map((note) => `  ${note}`),
      ]),
      ...unreadable.map((u) => `- ${u.planPath} [unreadable] ${u.error}`),
    ].join("\n")
    return { model: planListText(listing), user: `/plan — unfinished plans:\n${listing}` }
  }
  if (argument === "resume") {
    const current = await plans.service.latestLiveFor(session)
    const target = current ?? (await plans.queries.unfinished())[0]?.planPath
    if (target === undefined) return nothing("There is no unfinished plan to resume. Start one with /plan <task>.")
    const from = current === undefined ? (await plans.service.bind(session, target)).from : null
    const status = plans.service.statusOf(target)
    const notes = (await plans.notes.forPlans([target])).get(target) ?? []
    return {
      model: planResumeText(target, status, await plans.queries.read(session, { path: target }), from, notes),
      user: [`/plan resume`, `Resumed ${target} (${status}) in this session.`, ...notes].join("\n"),
    }
  }
  if (argument === "confirm") {
    // The user's confirmation goes through the same dialog as the tool path: the model is asked to open it.
    const held = await plans.service.pendingDocumentOf(session)
    if (held === undefined) return nothing("There is no live plan in this session.")
    if (held.pending === null) return nothing(`The document of ${held.planPath} says what the plan is (${held.status}): there is nothing to confirm.`)
    const text = planConfirmText(held.planPath, held.status, held.pending)
    return { model: text.model, user: `/plan confirm\n${text.user}` }
  }
  if (argument === "discard") {
    if ((await plans.service.latestLiveFor(session)) === undefined) return nothing("There is no live plan in this session to discard.")
    const outcome = await plans.service.discard(session, { by: "user" }, "discarded by the user with /plan discard")
    return { model: planDiscardText(outcome.output), user: `/plan discard\n${outcome.output}` }
  }
  return undefined
}

/**
 * The turn's text becomes `text.model` in the first text part, hidden from the TUI (the other text parts go), and
 * the user's message shows `text.user`, which the model never reads.
 */
export function presentCommandTurn(parts: CommandTextPart[], text: CommandTurnText): void {
  const first = parts.findIndex((p) => p.type === "text")
  const firstPart = parts[first]
  if (firstPart === undefined) return
  firstPart.text = text.model
  for (let i = parts.length - 1; i > first; i--) if (parts[i]?.type === "text") parts.splice(i, 1)
  hideCommandTemplate(parts, text.user)
}

/** Hides the turn's text parts from the TUI (the model still reads them) and shows `user` as the user's message. */
function hideCommandTemplate(parts: CommandTextPart[], user: string): void {
  for (const part of parts) if (part.type === "text") part.synthetic = true
  parts.push({ type: "text", text: user, ignored: true })
}
