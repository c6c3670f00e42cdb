import type { Attestation, BudgetAdditions, GoalLimits } from "../../machines/goal/goal.gates"
import type { GoalBirthFacts, GoalEvent, GoalMachine, GoalRequester } from "../../machines/goal/goal.machine"
import { explainGoalRefusal } from "../../machines/goal/goal.refusals"
import { goalStatusOf } from "../../machines/goal/goal.status"
import { ExclusiveKeyTaken } from "../lifecycle/exclusive.key"
import { GateRefusal } from "../lifecycle/gate.refusal"
import type { Lifecycle } from "../lifecycle/lifecycle"
import type { Clock, Confirm, DialogRequest, Logger } from "../lifecycle/lifecycle.ports"
import { planFileName, slugify } from "../plan/plan.naming"
import { runGoalChecks, checkRunReport } from "./goal.check.run"
import { type GoalContract, definedOnly, limitsOf, termsOf } from "./goal.contract"
import { lastFinishedGoal } from "./goal.finished"
import { appendRevision, describeContractChanges, newGoalDocument, parseGoalDocument, replaceContract, withGoalFrontmatter } from "./goal.document"
import { type DocumentRevision, GoalDocumentFollower } from "./goal.follow"
import { type DriverFacts, driverLineText } from "../../machines/driver.claim"
import type { DriverClaims } from "../lifecycle/driver.claim"
import { GOAL_CLAIMS } from "./goal.claims"
import { GOAL_DIR } from "./goal.paths"
import { type GoalSnapshot, liveGoalFact } from "./goal.lifecycle"
import type { GoalCheckRunner, GoalFiles } from "./goal.ports"
import { NoGoalError } from "./goal.errors"
import { goalOverview } from "./goal.report"
import { GoalRuns, completionSummary, resultsOf, shownOf } from "./goal.runs"
import { GoalAudits } from "./goal.audit"

export interface GoalServiceDeps {
  lifecycle: Lifecycle<GoalMachine>
  files: GoalFiles
  clock: Clock
  log: Logger
  checks: GoalCheckRunner
  /** Whether the session holds a draft plan: the plan machine's answer, asked by the arm and resume gates. */
  hasDraftPlan(sessionId: string): Promise<boolean>
  /** The debounce every new goal's loop runs with (ms); the machine's default when absent. */
  debounceMs?: number
  /**
   * The workspace's driver claim: the process that shows a goal's dialog holds the goal's claim while it does, so a
   * process starting meanwhile never closes that dialog in its restore. Without it this process is the only one.
   */
  claims?: DriverClaims
  /** The audits of goals written with one (`/goal … --audit`); without it such a goal's audit fails, and it cannot complete. */
  audits?: GoalAudits
}

/** A goal tool's answer: what the model reads, plus the goal it touched. */
export interface GoalOutcome {
  goalPath: string
  output: string
}

/** Who asks: the user's own /goal command (its own decision, no dialog), or the model's tool call with its dialog. */
export type GoalAsker = { by: "user" } | { by: "model"; confirm: Confirm }

// Every goal tool and command goes through here: the machine decides, the document is written in the same step, and
// only then the snapshot and the transition are committed. Nothing here re-decides a gate: a refusal is the machine's.

export class GoalService {
  readonly lifecycle: Lifecycle<GoalMachine>
  /** Why a goal's loop could not decide at its last deadline (set by the harness once its loop exists), for /goal. */
  stalledWhy: (goalPath: string) => string | undefined = () => undefined
  /** The latest run of each goal's checks, and what each session's completion line showed of them. */
  readonly runs = new GoalRuns()
  private readonly deps: GoalServiceDeps
  private readonly follower: GoalDocumentFollower

  constructor(deps: GoalServiceDeps) {
    this.deps = deps
    this.lifecycle = deps.lifecycle
    this.follower = new GoalDocumentFollower(deps)
  }

  /** The session's live (active or paused) goal, as this process knows it. */
  liveFor(sessionId: string): GoalSnapshot | undefined {
    for (const [, snapshot] of this.lifecycle.instances()) if (snapshot.hasTag("live") && snapshot.context.sessionId === sessionId) return snapshot
    return undefined
  }

  /** Queued goals, oldest first: the workspace's queue. */
  queue(): GoalSnapshot[] {
    return [...this.lifecycle.instances()]
      .map(([, snapshot]) => snapshot)
      .filter((snapshot) => snapshot.status === "active" && goalStatusOf(snapshot.value) === "queued")
      .sort((a, b) => a.context.createdAt - b.context.createdAt || a.context.goalPath.localeCompare(b.context.goalPath))
  }

  async refresh(): Promise<void> {
    await this.lifecycle.refresh()
  }

  /**
   * goal_write / `/goal add`: a new goal, queued; with `arm` the user's dialog arms it for the session. The machine's
   * birth gate refuses an arm asked beside the session's live goal (GateRefusal): nothing is written then.
   */
  async write(sessionId: string, contract: GoalContract, arm: GoalAsker | null): Promise<GoalOutcome> {
    await this.refresh()
    const birth: GoalBirthFacts = { armAsked: arm !== null, liveGoal: liveGoalFact(this.liveFor(sessionId)) }
    const now = this.deps.clock.now()
    const at = new Date(now).toISOString()
    const taken = new Set((await this.deps.files.list()).map((p) => p.slice(GOAL_DIR.length + 1)))
    const goalPath = `${GOAL_DIR}/${planFileName(at.slice(0, 10), slugify(contract.objective.split("\n", 1)[0] ?? "goal"), taken)}`
    const limits = limitsOf(contract)
    const document = newGoalDocument(contract, limits, at)
    await this.lifecycle.create(goalPath, {
      goalPath,
      sessionId: null,
      contract: termsOf(contract),
      limits,
      createdAt: now,
      document,
      debounceMs: this.deps.debounceMs,
      birth,
      audit: contract.audit === true,
    })
    if (arm === null)
      return {
        goalPath,
        output: `Goal queued: ${goalPath}. It stays inert until it is armed (/goal resume arms the oldest queued goal when the session is free).`,
      }
    return this.arm(goalPath, sessionId, arm)
  }

  /** goal_write revise=true: a new revision of the live goal's contract; budgets are kept unless given. */
  async revise(sessionId: string, contract: GoalContract, budgetsGiven: Partial<GoalLimits>, source: string): Promise<GoalOutcome> {
    // A hand edit not yet taken in is its own revision first: this one's changes are described against it.
    const goal = await this.latestLive(sessionId)
    const { goalPath } = goal.context
    const text = await this.read(goalPath)
    const before = parseGoalDocument(text, goalPath)
    const limits: GoalLimits = { ...goal.context.limits, ...definedOnly(budgetsGiven) }
    const changes = describeContractChanges(before.contract, contract)
    const revision = goal.context.revision + 1
    const at = new Date(this.deps.clock.now()).toISOString()
    let next = replaceContract(text, goalPath, contract)
    next = withGoalFrontmatter(next, goalPath, {
      revision,
      max_turns: limits.maxTurns,
      max_minutes: limits.maxMinutes,
      max_cost: limits.maxCost ?? undefined,
      max_tokens: limits.maxTokens ?? undefined,
      updated: at,
    })
    next = appendRevision(next, goalPath, `${at} revision ${revision} (${source}): ${changes.join("; ") || "no change to the contract"}`)
    await this.dispatch(goalPath, { type: "goal.revise", contract: termsOf(contract), limits, document: next })
    return {
      goalPath,
      output: `Goal revised: ${goalPath} is at revision ${revision}. ${changes.length > 0 ? `Changes: ${changes.join("; ")}.` : ""} Earlier check results no longer count.`,
    }
  }

  /** Arms a queued goal for the session: the machine's arm gate, then the user's dialog (the user's command is its own allow). */
  private async arm(goalPath: string, sessionId: string, asker: GoalAsker): Promise<GoalOutcome> {
    // A queued goal's document edited by hand is taken in first: the arm gate decides on the contract the user sees.
    const queued = this.lifecycle.snapshot(goalPath)
    const followed = queued === undefined ? undefined : await this.followDocument(queued)
    if (followed?.value === "abandoned") return { goalPath, output: `Goal ${goalPath} was not armed: its document says abandoned, so it is abandoned.` }
    const draftPlan = await this.deps.hasDraftPlan(sessionId)
    let arming: GoalSnapshot
    try {
      arming = await this.dispatch(goalPath, { type: "goal.arm", sessionId, draftPlan })
    } catch (error) {
      if (!(error instanceof GateRefusal)) throw error
      return {
        goalPath,
        output: `Goal written but not armed: ${error.message}\nIt stays queued at ${goalPath}; /goal resume arms it once the session is free.`,
      }
    }
    let dialog: DialogRequest
    try {
      const doc = parseGoalDocument(await this.read(goalPath), goalPath)
      dialog = {
        permission: "goal_write",
        subject: goalPath,
        summary: `Arm goal "${doc.contract.objective.split("\n", 1)[0]}" (${doc.contract.checks.length} checks, ${doc.contract.success.length} criteria, ${doc.frontmatter.max_turns} turns, ${doc.frontmatter.max_minutes} minutes${arming.context.audit === null ? "" : ", and a clean audit by an auditor session"})? The session then works on it by itself until the host's checks pass${arming.context.audit === null ? "" : " and the audit finds no bug"}.`,
      }
    } catch (error) {
      // The arm dialog will not be asked: the goal leaves it at once, back to where an arm can start again.
      await this.lifecycle
        .dispatch(goalPath, { type: "dialog.reject", dialog: arming.context.dialog })
        .catch((e: unknown) => this.deps.log.warn(`goal ${goalPath}: ${String(e)}`))
      throw new Error(
        `goal ${goalPath} could not be armed: ${error instanceof Error ? error.message : String(error)}. It stays queued: arm it again (/goal resume) once its document can be read, or discard it.`,
      )
    }
    if (!(await this.ask(arming, asker, dialog)))
      return { goalPath, output: `The user did not arm ${goalPath}; it stays queued. Ask what to change (goal_write revise=true), or leave it for later.` }
    return {
      goalPath,
      output: `Goal armed: ${goalPath}. Work on it now; when the session goes idle the loop sends a [forge:goal-continue] brief. goal_check shows where the checks stand, goal_complete finishes it.`,
    }
  }

  /** goal_check: runs the checks (all, or the items given) on the host and enters them in the Check Log; advisory. */
  async check(sessionId: string, items?: number[]): Promise<GoalOutcome> {
    const goal = await this.latestLive(sessionId)
    const { goalPath, revision, contract } = goal.context
    const run = await runGoalChecks({ runner: this.deps.checks, clock: this.deps.clock, contract, revision, items })
    this.runs.record(goalPath, run)
    await this.dispatch(goalPath, { type: "goal.checked", entries: run.entries })
    return { goalPath, output: checkRunReport(goalPath, run, "advisory: goal_complete re-runs every check itself") }
  }

  /**
   * goal_complete: the host re-runs EVERY check, then the machine's completion gate (which also asks that the call's
   * line showed the user a passing run, goal.runs.ts), then the user's dialog.
   */
  async complete(sessionId: string, attestations: Attestation[], confirm: Confirm, signal?: AbortSignal): Promise<GoalOutcome> {
    const shown = this.runs.take(sessionId)
    const goal = await this.latestLive(sessionId)
    const { goalPath, revision, contract } = goal.context
    const refusedEarly: GoalEvent = { type: "goal.complete", run: { revision, results: [] }, attestations }
    // A goal that is not driving, or is waiting on the user's answer to a dialog (a completion already asked for),
    // cannot complete whatever the checks say: ask its tags before spending minutes on them.
    if (!goal.hasTag("driving") || goal.hasTag("awaiting-user")) throw new GateRefusal("goal", "goal.complete", explainGoalRefusal(goal, refusedEarly))
    const run = await runGoalChecks({ runner: this.deps.checks, clock: this.deps.clock, contract, revision })
    this.runs.record(goalPath, run)
    await this.dispatch(goalPath, { type: "goal.checked", entries: run.entries })
    const event: GoalEvent = { type: "goal.complete", run: resultsOf(run), attestations, ...(shown === undefined ? {} : { shown: shownOf(shown) }) }
    let completing: GoalSnapshot
    try {
      completing = await this.dispatch(goalPath, event)
    } catch (error) {
      if (!(error instanceof GateRefusal)) throw error
      throw new GateRefusal("goal", "goal.complete", `${error.message}\n\n${checkRunReport(goalPath, run, "the host's own run at the completion gate")}`)
    }
    // A goal written with an audit went to its auditor: the completion dialog opens only from a clean audit.
    if (completing.hasTag("auditing")) {
      // A harness without an auditor fails the audit: nothing completes unaudited.
      const error = "this harness runs no auditor sessions, so a goal written with an audit cannot complete here"
      completing = await (this.deps.audits?.run(completing, signal) ??
        this.dispatch(goalPath, { type: "goal.audit.failed", error, now: this.deps.clock.now() }))
      if (!completing.hasTag("awaiting-user")) throw new GateRefusal("goal", "goal.complete", GoalAudits.refusalText(completing))
    }
    const last = completing.context.audit?.last
    const audited = last === undefined || last === null ? "" : ` Audit ${completing.context.audit?.rounds} clean: ${last.summary}`
    const summary = `${completionSummary(contract.objective, run, attestations.map((a) => `${a.criterion}: ${a.evidence}`).join("; "))}${audited}`
    if (!(await this.ask(completing, { by: "model", confirm }, { permission: "goal_complete", subject: goalPath, summary })))
      return { goalPath, output: `The user did not confirm the completion of ${goalPath}; it stays active. Ask what is missing.` }
    return { goalPath, output: `Goal completed: ${goalPath}. Every check passed in the host's own run (revision ${revision}).` }
  }

  /** goal_pause / `/goal pause`: a stop always wins, in any state of the loop. */
  async pause(sessionId: string, by: GoalRequester, blocker?: string): Promise<GoalOutcome> {
    await this.refresh()
    const goal = this.requireLive(sessionId)
    const after = await this.dispatch(goal.context.goalPath, { type: "goal.pause", by, blocker })
    const why = after.context.stopReason === "blocker" ? `blocked: ${after.context.blocker}` : "paused by request"
    return { goalPath: goal.context.goalPath, output: `Goal paused: ${goal.context.goalPath} (${why}). /goal resume re-arms it through the user's dialog.` }
  }

  /** goal_resume / `/goal resume`: the session's paused goal, else the oldest queued goal, armed again through the dialog. */
  async resume(sessionId: string, asker: GoalAsker, add: Partial<BudgetAdditions> = {}): Promise<GoalOutcome> {
    await this.refresh()
    const found = this.liveFor(sessionId)
    const live = found === undefined ? undefined : await this.followDocument(found)
    if (live === undefined) {
      const oldest = this.queue()[0]
      if (oldest === undefined) throw new NoGoalError(sessionId)
      return this.arm(oldest.context.goalPath, sessionId, asker)
    }
    const { goalPath } = live.context
    const draftPlan = await this.deps.hasDraftPlan(sessionId)
    const after = await this.dispatch(goalPath, {
      type: "goal.resume",
      sessionId,
      draftPlan,
      now: this.deps.clock.now(),
      addTurns: add.addTurns ?? 0,
      addMinutes: add.addMinutes ?? 0,
      addCost: add.addCost,
      addTokens: add.addTokens,
    })
    const limits = after.context.pending?.limits ?? after.context.limits
    const dialog: DialogRequest = {
      permission: "goal_resume",
      subject: goalPath,
      summary: `Resume goal ${goalPath} (${after.context.turnsUsed} of ${limits.maxTurns} turns used, ${limits.maxMinutes} minutes in all)? The session then works on it by itself again.`,
    }
    if (!(await this.ask(after, asker, dialog))) return { goalPath, output: `The user did not resume ${goalPath}; it stays paused.` }
    return { goalPath, output: `Goal resumed: ${goalPath} (${after.context.turnsUsed} of ${limits.maxTurns} turns used). Go on with the work.` }
  }

  /** goal_discard / `/goal discard|stop|cancel`: the user's command acts at once, the model's call needs the dialog. */
  async discard(sessionId: string, asker: GoalAsker, reason?: string): Promise<GoalOutcome> {
    await this.refresh()
    const goal = this.liveFor(sessionId) ?? this.queue()[0]
    if (goal === undefined) throw new NoGoalError(sessionId)
    const { goalPath } = goal.context
    const discarding = await this.dispatch(goalPath, { type: "goal.discard", by: asker.by, reason })
    if (asker.by === "user") return { goalPath, output: `Goal discarded: ${goalPath}.` }
    const dialog: DialogRequest = { permission: "goal_discard", subject: goalPath, summary: `Discard goal ${goalPath}?${reason ? ` Reason: ${reason}.` : ""}` }
    if (!(await this.ask(discarding, asker, dialog))) return { goalPath, output: `The user kept ${goalPath}.` }
    return { goalPath, output: `Goal discarded: ${goalPath}.` }
  }

  /** `/goal`: the session's live goal and the workspace queue. */
  async overview(sessionId: string): Promise<string> {
    await this.refresh()
    // The document is looked at first: a status it says pending the user's dialog is shown beside the goal's own.
    const found = this.liveFor(sessionId)
    const live = found === undefined ? undefined : await this.followDocument(found)
    // A queued goal whose document was abandoned by hand leaves the queue (a stamp per goal: unchanged ones are not read).
    for (const queued of this.queue()) await this.followDocument(queued)
    const finished = await lastFinishedGoal(this.lifecycle, this.deps.files, sessionId)
    const overview = goalOverview({ live, finished, queue: this.queue(), now: this.deps.clock.now() })
    // An active goal needs a driver: who it is, or why nobody drives it (nothing is live and undriven unsaid).
    if (live === undefined || !live.hasTag("driving")) return overview
    const stalled = this.stalledWhy(live.context.goalPath)
    if (stalled !== undefined) return `${overview}\nDriver: stalled: ${stalled}`
    if (this.deps.claims === undefined) return overview
    const { claim, holderAlive, now } = await this.deps.claims.facts(GOAL_CLAIMS, live.context.goalPath)
    return `${overview}\nDriver: ${driverLineText(claim, holderAlive, now)}.`
  }

  /** /goal confirm: the session's live goal and the status its document says pending the user's dialog (null when none). */
  async pendingDocumentOf(sessionId: string): Promise<{ goalPath: string; status: string; pending: string | null } | undefined> {
    await this.refresh()
    const found = this.liveFor(sessionId)
    if (found === undefined) return undefined
    const live = await this.followDocument(found)
    return { goalPath: live.context.goalPath, status: goalStatusOf(live.value), pending: live.context.pendingDocument ?? null }
  }

  /** The session's live goal as the database and its document say now: a hand edit of its contract is taken in first. */
  private async latestLive(sessionId: string): Promise<GoalSnapshot> {
    await this.refresh()
    return this.followDocument(this.requireLive(sessionId))
  }

  /**
   * Takes in a hand edit of the goal's contract as a new revision, where the machine lets the contract change; then
   * hands the status the document says to the machine, which follows or holds it (goal.document.changed).
   */
  async followDocument(goal: GoalSnapshot): Promise<GoalSnapshot> {
    const { goalPath } = goal.context
    const look = await this.follower.look(goal)
    if (look === undefined) return goal
    const revised = look.revision === undefined ? goal : await this.takeRevision(goal, look.revision)
    const said: GoalEvent = { type: "goal.document.changed", status: look.status }
    const holds = revised.context.pendingDocument ?? goalStatusOf(revised.value)
    return holds === look.status || !this.lifecycle.can(goalPath, said) ? revised : this.dispatch(goalPath, said)
  }

  private async takeRevision(goal: GoalSnapshot, revision: DocumentRevision): Promise<GoalSnapshot> {
    const { goalPath } = goal.context
    const event: GoalEvent = { type: "goal.revise", contract: termsOf(revision.contract), limits: revision.limits, document: revision.document }
    if (!this.lifecycle.can(goalPath, event)) {
      this.deps.log.warn(`goal ${goalPath}: the contract was edited by hand but cannot be taken in now (${explainGoalRefusal(goal, event)})`)
      return goal
    }
    const after = await this.dispatch(goalPath, event)
    this.deps.log.info(`goal ${goalPath}: took in a hand edit as revision ${after.context.revision}: ${revision.changes.join("; ")}`)
    return after
  }

  private requireLive(sessionId: string): GoalSnapshot {
    const goal = this.liveFor(sessionId)
    if (goal === undefined) throw new NoGoalError(sessionId)
    return goal
  }

  private async read(goalPath: string): Promise<string> {
    const text = await this.deps.files.read(goalPath)
    if (text === undefined) throw new Error(`goal document ${goalPath} is missing: restore the file, or discard the goal with /goal discard`)
    return text
  }

  /** One awaited step; a live goal the database gives to another goal of the session is named. */
  async dispatch(goalPath: string, event: GoalEvent): Promise<GoalSnapshot> {
    return this.lifecycle.dispatch(goalPath, event).catch(namingTheLiveGoal)
  }

  /**
   * The dialog `opened` holds open (the snapshot the step that opened it returned): the kernel asks the user and gives
   * the machine the answer to that dialog, so an answer to one that closed meanwhile (a pause, a takeover, another
   * call's dialog) is refused by the machine and changes nothing; an allow that cannot be committed closes it as a no.
   */
  private async ask(opened: GoalSnapshot, asker: GoalAsker, request: DialogRequest): Promise<boolean> {
    const { goalPath, dialog } = opened.context
    // This process shows the dialog, so it holds the goal's claim while it is open (a restore elsewhere leaves it alone),
    // where the machine's driver gate lets it take the goal over: a live driver elsewhere keeps the goal.
    const restored = (driver: DriverFacts): GoalEvent => ({ type: "goal.restored", driver, now: this.deps.clock.now() })
    await this.deps.claims?.drive(GOAL_CLAIMS, goalPath, (driver) => this.lifecycle.can(goalPath, restored(driver)))
    // The user's own command is its own allow.
    const confirm: Confirm = asker.by === "user" ? async () => true : asker.confirm
    // A goal with an audit takes the workspace as it stands at its first arm: the auditor's diff starts there.
    const auditBase = opened.context.audit?.base === null ? await this.deps.audits?.baseline() : undefined
    const answer = (allowed: boolean): GoalEvent =>
      allowed
        ? { type: "dialog.allow", dialog, now: this.deps.clock.now(), ...(auditBase === undefined ? {} : { auditBase }) }
        : { type: "dialog.reject", dialog }
    const { allowed } = await this.lifecycle.ask(goalPath, request, confirm, answer).catch(namingTheLiveGoal)
    return allowed
  }
}

/** A step (an arm's or a resume's allow) the database refused because the session's live goal is another one: it is named. */
function namingTheLiveGoal(error: unknown): never {
  if (error instanceof ExclusiveKeyTaken) throw new Error(`this session already has a live goal: ${error.holder}. Finish, pause or discard it first.`)
  throw error
}
