import type { ToolContext, ToolDefinition } from "@opencode-ai/plugin"
import * as z from "zod"
import { FileToolError } from "../../../services/files/file.errors"
import type { ForgeFiles } from "../../../services/files/forge.files"
import { RewindMovedError } from "../../../services/files/journal.errors"
import type { JournalActor, RewindReport } from "../../../services/files/journal.types"
import { rewindPreviewText } from "../../../services/files/rewind.text"
import { boundedText } from "../arg.limits"
import { forgeTool } from "../tool.args"
import { screenText } from "../tool.screen"
import type { RewindPreviews } from "./rewind.previews"

// forge_rewind in two calls. The first previews: what the rewind would restore, delete or leave alone, each file with
// its size; nothing changes. The second (confirm: true, the same turn and force) asks the user in a dialog whose line
// lists that preview, then writes exactly that plan: a file that moved in between stops it, with the new preview.
// Every rewind asks, "Allow always" included: its dialog remembers no pattern.

export interface RewindToolDeps {
  files: () => Promise<ForgeFiles>
  actor(ctx: ToolContext): Promise<JournalActor>
  userTurns(session: string): Promise<{ id: string; at: number }[]>
  previews: RewindPreviews
}

export function rewindTool(deps: RewindToolDeps): ToolDefinition {
  return forgeTool("forge_rewind", {
    description:
      "Take every file this session changed since a user turn back to how it was when that turn was sent, in one step: the turn by number (1 = the session's first user message) or by message id. Forge's own changes and opencode's write, edit and apply_patch count; creations are removed and removals restored. A file someone else changed since is a conflict, left alone unless force is true. Two calls: first without confirm, which changes nothing and answers what the rewind would do (relay it to the user); then the same call with confirm: true, which asks the user in a dialog and rewinds only what was shown.",
    args: {
      turn: z.number().int().min(1).optional().describe("The user turn, counted from 1"),
      message: boundedText("name").min(1).optional().describe("The user message id of the turn"),
      force: z.boolean().default(false).describe("Restore conflicting files too"),
      confirm: z.boolean().default(false).describe("Carry out the rewind previewed by the same call without confirm: the user is asked first"),
    },
    async execute(args, ctx) {
      if ((args.turn === undefined) === (args.message === undefined))
        throw new FileToolError("forge_rewind: give either turn (a number from 1) or message (a user message id), one of them.")
      const actor = await deps.actor(ctx)
      const turns = await deps.userTurns(actor.session)
      const target = args.turn !== undefined ? turns[args.turn - 1] : turns.find((t) => t.id === args.message)
      if (target === undefined)
        throw new FileToolError(
          args.turn !== undefined
            ? `forge_rewind: the session has ${turns.length} user turn(s); turn ${args.turn} is not one of them.`
            : `forge_rewind: ${args.message} is no user message of this session.`,
        )
      const turn = `turn ${turns.indexOf(target) + 1} (${target.id})`
      const files = await deps.files()
      const show = (report: RewindReport) => deps.previews.remember(ctx.sessionID, args, { turn, report })
      if (!args.confirm) {
        const report = await files.previewRewind(target.at, args.force, actor)
        show(report)
        const next =
          report.restored.length === 0
            ? "There is nothing to write: no need to confirm."
            : "Nothing has changed yet. Tell the user, then call forge_rewind again with the same arguments and confirm: true: the user is asked in a dialog that lists these files."
        return {
          output: `${rewindPreviewText(turn, report)}\n${next}`,
          title: screenText(`Rewind preview to ${turn}: ${report.restored.length} file(s)`, 120),
          metadata: { turn },
        }
      }
      const shown = deps.previews.find(ctx.sessionID, args)
      if (shown === undefined || shown.turn !== turn)
        throw new FileToolError(
          "forge_rewind: confirm carries out a rewind the user was shown, and none of this turn (and force) was: call forge_rewind with the same arguments without confirm first; its answer is what the user decides on.",
        )
      deps.previews.forget(ctx.sessionID, args)
      if (!(await askUser(ctx, turn, shown.report))) throw new FileToolError(`forge_rewind: the user did not allow the rewind to ${turn}; nothing was changed.`)
      try {
        const outcome = await files.rewind(turn, target.at, args.force, actor, shown.report.fingerprint)
        return { output: outcome.output, title: screenText(outcome.title, 120), metadata: { turn } }
      } catch (error) {
        if (!(error instanceof RewindMovedError)) throw error
        show(error.plan)
        throw new FileToolError(
          `forge_rewind: ${error.message}. What it would do now:\n${rewindPreviewText(turn, error.plan)}\nTell the user; to rewind, call forge_rewind with confirm: true again (the user is asked again).`,
        )
      }
    },
  })
}

/** The rewind's dialog: every one asks (no pattern is remembered); any answer but allow is a no. */
async function askUser(ctx: ToolContext, turn: string, report: RewindReport): Promise<boolean> {
  try {
    await ctx.ask({
      permission: "forge_rewind",
      patterns: [`${turn} ${report.fingerprint}`],
      always: [],
      metadata: { rewind: turn, files: report.restored.length, conflicts: report.conflicts.length },
    })
    return true
  } catch {
    return false
  }
}
