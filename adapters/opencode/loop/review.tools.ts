import type { ToolContext, ToolDefinition } from "@opencode-ai/plugin"
import * as z from "zod"
import type { REVIEW_TOOL_IDS } from "../../../machines/agent.partition"
import { MAX_LOOP_SECTIONS } from "../../../machines/loop/loop.gates"
import { MAX_AUDITS_PAGE } from "../../../machines/loop/loop.findings"
import type { LoopReviewService } from "../../../services/loop/loop.review"
import { boundedText } from "../arg.limits"
import type { ForgeRuntimeAccess } from "../runtime.access"
import { forgeTool } from "../tool.args"
import { answer } from "./loop.tools"

// The review tools: findings as records. In a loop's pass they are the loop's (its auditor writes and deletes them;
// the audit's clean gate reads them); anywhere else they are the workspace's own review.

const text = z.string().trim().min(1).max(4_000)
const file = boundedText("path")
  .trim()
  .min(1)
  .refine((f) => !f.includes("\u0000"), "holds a NUL byte, which no path can carry; nothing was recorded")
  .describe("Workspace-relative (in a loop: worktree-relative) file")
const line = z.number().int().positive().describe("1-based line")
const sectionIndex = z.number().int().min(0).max(MAX_LOOP_SECTIONS).optional().describe("In a loop: the section (0-based) it belongs to; default the audit's")
const crossSection = z.boolean().optional().describe("In a loop: the finding spans sections (not with sectionIndex)")

export interface ReviewToolsDeps {
  access: ForgeRuntimeAccess
  reviews: () => Promise<LoopReviewService>
}

export function createReviewTools(deps: ReviewToolsDeps): Record<(typeof REVIEW_TOOL_IDS)[number], ToolDefinition> {
  const open = async (ctx: ToolContext) => {
    const { session } = await deps.access.forTool(ctx)
    return { reviews: await deps.reviews(), session }
  }
  return {
    review_write: forgeTool("review_write", {
      description:
        "Record a review finding at a file and line: a bug or a warning, with what is wrong and, when you can, a scenario that shows it. In a loop only its auditor writes them, before its handoff: a bug open in the audit's scope sends the section back to a coder, and stays open (the next audit sees it) until an auditor deletes it with review_delete once it is fixed. One finding per place. From a goal's auditor session it is the goal audit's (a bug keeps the goal from completing until an audit deletes it). Outside a loop it goes to the workspace's own review.",
      args: {
        file,
        line,
        severity: z.enum(["bug", "warning"]).describe("A bug blocks a loop's audit; a warning does not"),
        description: text.describe("What is wrong"),
        scenario: text.optional().describe("How to see it go wrong"),
        crossSection,
        sectionIndex,
      },
      async execute(args, ctx) {
        const { reviews, session } = await open(ctx)
        return answer(await reviews.write(session, args))
      },
    }),
    review_delete: forgeTool("review_delete", {
      description:
        "Delete a finding that is fixed (its file and line, and in a loop its section: the audit's by default, or crossSection). In a loop only its auditor deletes findings, before its handoff, never a coder.",
      args: { file, line, sectionIndex, crossSection },
      async execute(args, ctx) {
        const { reviews, session } = await open(ctx)
        return answer(await reviews.delete(session, args))
      },
    }),
    review_read: forgeTool("review_read", {
      description:
        "Read open review findings, as JSON, changing nothing. From a loop's pass: its audit's scope (its section and the earlier ones, with the cross-section findings; every section in the final audit), or allSections. Elsewhere: the workspace's own review, or loopName's findings. Filter by file, by text in the description or scenario (pattern, case-insensitive), or crossSection only. attempts: true pages the loop's audit history instead, newest first (limit 1-100, beforeId from the answer's nextBeforeId): each audit with the coder's handoff it checked, its outcome and the findings before and after.",
      args: {
        loopName: boundedText("name").optional().describe("A loop of this workspace (default: the caller's loop, else the workspace's own review)"),
        file: file.optional(),
        pattern: boundedText("pattern").optional().describe("Text to look for in descriptions and scenarios (case-insensitive)"),
        crossSection: z.boolean().optional().describe("Only the cross-section findings"),
        allSections: z.boolean().optional().describe("Every section of the loop, not the audit's scope"),
        attempts: z.boolean().optional().describe("The loop's audit history instead of its findings"),
        limit: z.number().int().min(1).max(MAX_AUDITS_PAGE).optional().describe("With attempts: audits per page (default 20)"),
        beforeId: z.number().int().positive().optional().describe("With attempts: audits older than this id"),
      },
      async execute(args, ctx) {
        const { reviews, session } = await open(ctx)
        const output = await reviews.read(session, args)
        return { output, title: args.attempts === true ? "review_read (audit history)" : "review_read", metadata: {} }
      },
    }),
  }
}
