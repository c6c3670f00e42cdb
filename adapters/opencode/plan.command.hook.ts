import { planDiscardText, planListText, planNothingText, planResumeText } from "./prompts/plan.command"
import type { ForgeRuntime } from "./runtime.access"

interface TextPart {
  type: string
  text?: string
}

/**
 * /plan's sub-commands are the user's own actions, so the plugin carries them out itself and rewrites the turn's
 * text to tell the model what happened. `/plan <task>` is left to the command template.
 */
export async function handlePlanCommand(runtime: ForgeRuntime, session: string, rawArguments: string, parts: TextPart[]): Promise<void> {
  // `opencode run --command` re-quotes arguments that contain spaces.
  const argument = rawArguments
    .trim()
    .replace(/^"(.*)"$/s, "$1")
    .trim()
  const text = await subcommandText(runtime, session, argument.toLowerCase())
  if (text !== undefined) replacePlanCommandText(parts, text)
}

async function subcommandText(runtime: ForgeRuntime, session: string, argument: string): Promise<string | undefined> {
  if (argument === "" || argument === "list") {
    const { plans, unreadable } = await runtime.queries.overview()
    if (plans.length === 0 && unreadable.length === 0) return planNothingText("There are no unfinished plans in this workspace. Start one with /plan <task>.")
    const listing = [
      ...plans.map((p) => `- ${p.planPath} [${p.status}] ${p.ticked}/${p.tasks} tasks — ${p.title}${p.session === session ? " (this session)" : ""}`),
      ...unreadable.map((u) => `- ${u.planPath} [unreadable] ${u.error}`),
    ].join("\n")
    return planListText(listing)
  }
  if (argument === "resume") {
    const current = await runtime.plans.latestLiveFor(session)
    const target = current ?? (await runtime.queries.unfinished())[0]?.planPath
    if (target === undefined) return planNothingText("There is no unfinished plan to resume. Start one with /plan <task>.")
    const from = current === undefined ? (await runtime.plans.bind(session, target)).from : null
    const status = runtime.plans.statusOf(target)
    return planResumeText(target, status, await runtime.queries.read(session, { path: target }), from)
  }
  if (argument === "discard") {
    if ((await runtime.plans.latestLiveFor(session)) === undefined) return planNothingText("There is no live plan in this session to discard.")
    const outcome = await runtime.plans.discard(session, { by: "user" }, "discarded by the user with /plan discard")
    return planDiscardText(outcome.output)
  }
  return undefined
}

/** Replaces the turn's text with `text` (the first text part; the other text parts are dropped). */
export function replacePlanCommandText(parts: TextPart[], text: string): void {
  const first = parts.findIndex((p) => p.type === "text")
  const firstPart = parts[first]
  if (firstPart === undefined) return
  firstPart.text = text
  for (let i = parts.length - 1; i > first; i--) if (parts[i]?.type === "text") parts.splice(i, 1)
}
