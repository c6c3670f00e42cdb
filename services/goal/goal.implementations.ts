import type { GoalContext, GoalDocumentChange, GoalEvent, GoalMachine } from "../../machines/goal/goal.machine"
import type { EffectArgs, Implementations } from "../lifecycle/lifecycle.definition"
import type { Clock, Logger } from "../lifecycle/lifecycle.ports"
import { continuationBrief, wrapUpBrief } from "./goal.brief"
import { appendCheckLog, appendTurnLedger, parseGoalDocument, withGoalFrontmatter } from "./goal.document"
import type { GoalFrontmatter, GoalStatus } from "./goal.frontmatter"
import { type GoalAuditSessions, type GoalFiles, type GoalPrompter, GoalSendError } from "./goal.ports"
import { auditLine } from "./goal.audit.text"

// The goal machine's effects, supplied by the harness: the document write of every step that changes what the
// document says (frontmatter from the context, the Turn Ledger, the Check Log), and the loop's prompts. The host
// awaits them before the step is committed: a failed write leaves goal, database and file as they were. A continuation
// writes its document before the brief goes out, so a failed send leaves the document one turn ahead until the
// failure's own step (loop.failed) writes it back from the committed context.

export interface GoalImplementationDeps {
  files: GoalFiles
  clock: Clock
  prompter: GoalPrompter
  log: Logger
  /** The auditor sessions of goal audits (stopped when a goal leaves its audit another way); none: nothing to stop. */
  auditSessions?: Pick<GoalAuditSessions, "stop">
}

/** The status a change leaves the document in; undefined keeps the status it has. */
const STATUS_AFTER: Record<GoalDocumentChange, GoalStatus | undefined> = {
  created: undefined,
  armed: "active",
  resumed: "active",
  continued: "active",
  ledgered: "active",
  paused: "paused",
  completed: "completed",
  abandoned: "abandoned",
  revised: undefined,
  checked: undefined,
  audited: undefined,
}

/** The frontmatter the context says, for every key the machine owns. */
function frontmatterOf(context: GoalContext, status: GoalStatus | undefined, at: string): Partial<GoalFrontmatter> {
  return {
    ...(status === undefined ? {} : { status }),
    revision: context.revision,
    session: context.sessionId ?? undefined,
    max_turns: context.limits.maxTurns,
    max_minutes: context.limits.maxMinutes,
    max_cost: context.limits.maxCost ?? undefined,
    max_tokens: context.limits.maxTokens ?? undefined,
    turns_used: context.turnsUsed,
    armed_at: context.armedAt === null ? undefined : new Date(context.armedAt).toISOString(),
    // Why a goal stopped is written with its status: a change that keeps the status (a check, a revision) keeps them.
    ...(status === undefined
      ? {}
      : {
          stop_reason: status === "paused" ? (context.stopReason ?? undefined) : undefined,
          blocker: status === "paused" ? (context.blocker ?? undefined) : undefined,
        }),
    ...(context.audit === null ? {} : { audit: auditLine(context.audit) }),
    updated: at,
  }
}

export function createGoalImplementations(deps: GoalImplementationDeps) {
  const read = async (goalPath: string): Promise<{ text: string; stamp: string | undefined }> => {
    const stamp = deps.files.stamp(goalPath)
    const text = await deps.files.read(goalPath)
    if (text === undefined) throw new Error(`goal document ${goalPath} is missing`)
    return { text, stamp }
  }
  /** The document after one change, from the file as it is now (its stamp is what the write compares with). */
  const render = (text: string, { context, event }: EffectArgs<GoalMachine>, change: GoalDocumentChange, at: string): string => {
    const { goalPath } = context
    let next = text
    if (change === "checked") next = appendCheckLog(next, goalPath, (event as Extract<GoalEvent, { type: "goal.checked" }>).entries)
    // The turn that just closed is entered once, whichever step closed it.
    const turn = context.lastTurn
    if (turn !== null && !parseGoalDocument(next, goalPath).ledger.some((entry) => entry.turn === turn.turn)) {
      next = appendTurnLedger(next, goalPath, { at, turn: turn.turn, activity: turn.activity })
    }
    return withGoalFrontmatter(next, goalPath, frontmatterOf(context, STATUS_AFTER[change], at))
  }
  const sessionOf = (context: GoalContext): string => {
    if (context.sessionId === null) throw new Error(`goal ${context.goalPath} has no owner session`)
    return context.sessionId
  }
  return {
    actions: {
      writeDocument: async (args: EffectArgs<GoalMachine>, { change }: { change: GoalDocumentChange }) => {
        const { goalPath } = args.context
        if (change === "created") {
          await deps.files.write(goalPath, (args.event as { input: { document: string } }).input.document)
          return
        }
        if (change === "revised") {
          const { stamp } = await read(goalPath)
          await deps.files.write(goalPath, (args.event as Extract<GoalEvent, { type: "goal.revise" }>).document, stamp)
          return
        }
        // A compare-and-swap on the document as read: an edit made in between is never overwritten.
        const { text, stamp } = await read(goalPath)
        await deps.files.write(goalPath, render(text, args, change, new Date(deps.clock.now()).toISOString()), stamp)
      },
      sendBrief: async ({ context }: EffectArgs<GoalMachine>) => {
        const document = parseGoalDocument((await read(context.goalPath)).text, context.goalPath)
        const brief = continuationBrief({ context, document, now: deps.clock.now() })
        try {
          await deps.prompter.send(sessionOf(context), brief)
        } catch (error) {
          throw new GoalSendError(`the continuation brief could not be sent: ${error instanceof Error ? error.message : String(error)}`)
        }
      },
      // The audit ended another way (a pause, a discard, a takeover): its auditor's turn is stopped. Never fails the step.
      stopAuditor: async ({ context, event }: EffectArgs<GoalMachine>) => {
        const session = context.audit?.session ?? null
        if (session === null || event.type === "goal.audit.done" || event.type === "goal.audit.failed") return
        try {
          await deps.auditSessions?.stop(session)
        } catch (error) {
          deps.log.warn(`goal ${context.goalPath}: its auditor session ${session} could not be stopped: ${String(error)}`)
        }
      },
      // Wakes the brief would have carried, sent on their own when none follows: best effort, as the job's own wake is.
      releaseWakes: async ({ context }: EffectArgs<GoalMachine>) => {
        if (context.wakes.length === 0) return
        try {
          await deps.prompter.send(sessionOf(context), context.wakes.join("\n\n"))
        } catch (error) {
          deps.log.warn(`goal ${context.goalPath}: ${context.wakes.length} job wake(s) could not be sent: ${String(error)}`)
        }
      },
      // Best effort, after the pause is decided: the model tells the user where things stand. Never fails the pause.
      sendWrapUp: async ({ context }: EffectArgs<GoalMachine>) => {
        try {
          await deps.prompter.send(sessionOf(context), wrapUpBrief(context))
        } catch (error) {
          deps.log.warn(`goal ${context.goalPath}: the wrap-up prompt could not be sent: ${String(error)}`)
        }
      },
    },
  } satisfies Implementations<GoalMachine>
}
