// Issue 8, "one truth across processes": two opencode processes on one workspace share one database, so what one
// of them does to a plan is what the other one sees on its very next call. Each race runs between runtimes in real
// child processes (runtime.child.ts), repeated, and ends with file = database: every plan document's status and
// tasks are its actors row's, checked from this process through its own connection (plan.rows.ts).
import { describe, expect, it } from "vitest"
import { PASSING_CHECKS, PLAN_BODY } from "../plan/plan.helpers"
import { fileDatabaseDrift, planDocument, planDocuments, planRows, planTransitions } from "./plan.rows"
import { ChildError, type RuntimeProcess, useSharedWorkspace } from "./two.runtimes"

const ITERATIONS = 24
const BAN = "draft write-ban"
/** A late answer to a plan discarded meanwhile: the machine's own refusal of a finished plan. */
const NOT_APPLIED = /^plan \S+ is abandoned: a finished plan accepts no further changes/

/** A plan body with its own title (the file name follows it) and `tasks` tasks. */
function planBody(title: string, tasks = 2): string {
  const lines = Array.from({ length: tasks }, (_, i) => `- [ ] ${i + 1}. Step ${i + 1} of ${title}`)
  return PLAN_BODY.replace("# Fix login timeout", `# ${title}`).replace(/## Tasks\n(?:- \[ \] .*\n)+/, `## Tasks\n${lines.join("\n")}\n`)
}

function pair(runtimes: RuntimeProcess[]): [RuntimeProcess, RuntimeProcess] {
  const [a, b] = runtimes
  if (a === undefined || b === undefined) throw new Error("expected two runtimes")
  return [a, b]
}

/** The rejection of `promise` as a ChildError (fails the test when it resolved or threw something else). */
async function refusal(promise: Promise<unknown>): Promise<ChildError> {
  const error = await promise.then(
    (value) => new Error(`expected a refusal, got ${JSON.stringify(value)}`),
    (thrown: unknown) => thrown,
  )
  if (!(error instanceof ChildError)) throw error
  return error
}

/**
 * A held dialog's call, awaited only after the other process acted: marked handled now, so a test that fails before
 * it gets there reports its own failure, not an unhandled rejection of the call its child answered on the way out.
 */
function settledLater<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined)
  return promise
}

/** The gate's answer must be the draft write-ban (null, "the tool would run", is shown as such when it is not). */
function expectBanned(answer: string | null, what: string): void {
  expect(answer ?? "(no refusal: the tool would run)", what).toContain(BAN)
}

// Real processes on 2 shared cores, beside the rest of the unit run: each race gets more than the default 30 s.
describe("plans are one truth across two opencode processes on one workspace", { timeout: 90_000 }, () => {
  const ws = useSharedWorkspace()

  /**
   * File = database, and no process ever had to reconcile a plan with its document: nothing here edits a document by
   * hand, so a `document.reconcile` would mean a process read a document that disagreed with the record it stepped on.
   */
  async function expectFileIsDatabase(): Promise<void> {
    expect(await fileDatabaseDrift(ws.dir)).toEqual([])
    expect((await planTransitions(ws.dir)).filter((t) => t.event === "document.reconcile")).toEqual([])
  }

  it("a draft written in A bans writes and the shell in B, whether B started before the draft or after it; B's approve sees the plan", async () => {
    const [a, before] = pair(await ws.start("A", "B-before"))
    const sessions = Array.from({ length: ITERATIONS }, (_, i) => `race1-${i}`)
    const paths = new Map<string, string>()
    for (const session of sessions) {
      paths.set(session, (await a.call("write", { session, body: planBody(`Draft ${session}`) })).planPath)
      // B's very next call after A's write: no warm-up, no wait.
      for (const tool of ["write", "bash", "forge_shell"]) expectBanned(await before.call("gate", { session, tool }), `B-before, ${session}, ${tool}`)
    }
    const [after] = await ws.start("B-after")
    if (after === undefined) throw new Error("expected a runtime")
    for (const session of sessions) {
      for (const tool of ["write", "bash", "forge_shell"]) expectBanned(await after.call("gate", { session, tool }), `B-after, ${session}, ${tool}`)
      // Reading stays open everywhere.
      expect(await after.call("gate", { session, tool: "read" })).toBeNull()
    }
    // Either B approves (half each): the plan it approves is A's, and every process then lets writes through.
    for (const [index, session] of sessions.entries()) {
      const approver = index % 2 === 0 ? before : after
      const approved = await approver.call("approve", { session, dialog: "allow" })
      expect(approved.planPath).toBe(paths.get(session))
      for (const runtime of [a, before, after]) expect(await runtime.call("gate", { session, tool: "bash" })).toBeNull()
    }
    expect(planDocuments(ws.dir)).toEqual([...paths.values()].sort())
    for (const planPath of paths.values()) expect(planDocument(ws.dir, planPath).frontmatter.status).toBe("approved")
    await expectFileIsDatabase()
  })

  it("after A approves, B's very next call sees it: the listing says approved, the gate lets writes through (no stale ban), liveFor agrees", async () => {
    const [a, b] = pair(await ws.start("A", "B"))
    for (let i = 0; i < ITERATIONS; i++) {
      const session = `race2-${i}`
      const { planPath } = await a.call("write", { session, body: planBody(`Approve ${session}`) })
      // B has looked at the draft, so a stale copy of it is what B would answer with.
      expectBanned(await b.call("gate", { session, tool: "write" }), `iteration ${i}: B's gate on the draft`)
      expect(await b.call("liveFor", { session })).toEqual({ planPath, status: "draft" })
      await a.call("approve", { session, dialog: "allow" })
      // The listing and the gate each refresh first, so each is, in every other iteration, B's very first call after
      // the approval. liveFor is the synchronous session index (no database read): it is asked after one of them.
      const listing = async () =>
        expect((await b.call("list", {})).find((p) => p.planPath === planPath)?.status, `iteration ${i}: B's listing`).toBe("approved")
      const gate = async () => expect(await b.call("gate", { session, tool: "write" }), `iteration ${i}: B's gate`).toBeNull()
      for (const view of i % 2 === 0 ? [listing, gate] : [gate, listing]) await view()
      expect(await b.call("liveFor", { session })).toEqual({ planPath, status: "approved" })
      expect(await b.call("gate", { session, tool: "bash" })).toBeNull()
    }
    await expectFileIsDatabase()
  })

  it("B cannot give a session a second live plan while A's is live: one live row and one live document per session", async () => {
    const [a, b] = pair(await ws.start("A", "B"))
    const refusals: string[] = []
    let created = 0
    for (let i = 0; i < ITERATIONS; i++) {
      const session = `race3-${i}`
      // Both ask at the same moment: every other time with one title (both pick the same file name, so the name is
      // what collides first), else each with its own (so only the session's key can refuse the second plan).
      const titles = i % 2 === 0 ? [`Same ${session}`, `Same ${session}`] : [`First ${session}`, `Second ${session}`]
      const outcomes = await Promise.all([
        a.attempt("write", { session, body: planBody(titles[0] ?? "") }),
        b.attempt("write", { session, body: planBody(titles[1] ?? "") }),
      ])
      for (const outcome of outcomes) {
        if (outcome.ok) {
          if (outcome.value.output.startsWith("Plan created")) created++
          else expect(outcome.value.output).toMatch(/^Plan revised/)
        } else {
          expect(outcome.error.name, outcome.error.message).toBe("SessionHasPlanError")
          expect(outcome.error.message).toContain(`this session (${session}) already has a live plan`)
          refusals.push(session)
        }
      }
      // Whoever lost the race, the other process's write went to the one plan (a revision) or was refused.
      expect(
        outcomes.filter((o) => o.ok && o.value.output.startsWith("Plan created")),
        `iteration ${i}`,
      ).toHaveLength(1)
      // Once A's plan is known everywhere, B's write revises that plan; approved, it refuses revisions outright.
      const revised = await b.call("write", { session, body: planBody(`Third ${session}`) })
      expect(revised.output).toMatch(/^Plan revised/)
      await a.call("approve", { session, dialog: "allow" })
      const late = await refusal(b.call("write", { session, body: planBody(`Fourth ${session}`) }))
      expect(late.message).toContain("only a draft can be rewritten")
    }
    expect(created).toBe(ITERATIONS)
    const rows = await planRows(ws.dir)
    for (let i = 0; i < ITERATIONS; i++) {
      const session = `race3-${i}`
      const live = rows.filter((row) => row.sessionId === session && !row.terminal)
      expect(live, session).toHaveLength(1)
      expect(live[0]?.exclusiveKey).toBe(`plan:session:${session}`)
      const documents = planDocuments(ws.dir).filter((planPath) => planDocument(ws.dir, planPath).frontmatter.session === session)
      expect(documents, session).toEqual([live[0]?.planPath])
    }
    expect(rows).toHaveLength(ITERATIONS)
    await expectFileIsDatabase()
    // Reported by name so a run shows how often the refusal path (rather than the revision path) was taken.
    console.info(`race 3: ${refusals.length} of ${ITERATIONS} concurrent writes ended in SessionHasPlanError`)
  })

  it("A and B write plans with the same title at the same moment, each for its own session: each gets its own document", async () => {
    const [a, b] = pair(await ws.start("A", "B"))
    for (let i = 0; i < ITERATIONS; i++) {
      // The file name follows the title, and each process picks it from the folder as it lists it: the same name.
      const [fromA, fromB] = await Promise.all([
        a.call("write", { session: `race3n-a${i}`, body: PLAN_BODY }),
        b.call("write", { session: `race3n-b${i}`, body: PLAN_BODY }),
      ])
      expect(fromA.planPath, `iteration ${i}`).not.toBe(fromB.planPath)
      expect(planDocument(ws.dir, fromA.planPath).frontmatter.session).toBe(`race3n-a${i}`)
      expect(planDocument(ws.dir, fromB.planPath).frontmatter.session).toBe(`race3n-b${i}`)
    }
    expect(planDocuments(ws.dir)).toHaveLength(2 * ITERATIONS)
    await expectFileIsDatabase()
  })

  it("A holds an approval dialog open, B discards: A's answer is refused, and document and database both say abandoned", async () => {
    const [a, b] = pair(await ws.start("A", "B"))
    for (let i = 0; i < ITERATIONS; i++) {
      const session = `race4-${i}`
      const hold = `approve-${i}`
      const { planPath } = await a.call("write", { session, body: planBody(`Held approval ${session}`) })
      const approval = settledLater(a.call("approve", { session, dialog: { hold } }))
      expect((await a.dialogOpened(hold)).permission).toBe("plan_approve")
      // The dialog's state is the database's: B still bans writes while A's user decides.
      expectBanned(await b.call("gate", { session, tool: "write" }), `iteration ${i}: B's gate while A's dialog is open`)
      expect((await b.call("discard", { session, by: "user" })).output).toMatch(/^Plan discarded/)
      // Both answers are refused: an allow would approve an abandoned plan, a reject would reopen it as a draft.
      await a.call("release", { hold, allow: i % 2 === 0 })
      expect((await refusal(approval)).message).toMatch(NOT_APPLIED)
      expect(planDocument(ws.dir, planPath).frontmatter.status).toBe("abandoned")
      expect((await planRows(ws.dir)).find((row) => row.planPath === planPath)?.state).toBe("abandoned")
      for (const runtime of [a, b]) expect(await runtime.call("gate", { session, tool: "write" })).toBeNull()
    }
    await expectFileIsDatabase()
  })

  it("A holds a close dialog open, B discards: A's answer is refused, and document and database both say abandoned", async () => {
    const [a, b] = pair(await ws.start("A", "B"))
    for (let i = 0; i < ITERATIONS; i++) {
      const session = `race4c-${i}`
      const hold = `close-${i}`
      const { planPath } = await a.call("write", { session, body: planBody(`Held close ${session}`) })
      await a.call("approve", { session, dialog: "allow" })
      await b.call("tick", { session, task: 1 })
      await a.call("tick", { session, task: 2 })
      const closing = settledLater(a.call("close", { session, checks: PASSING_CHECKS, dialog: { hold } }))
      expect((await a.dialogOpened(hold)).permission).toBe("plan_close")
      expect((await b.call("discard", { session, by: "user" })).output).toMatch(/^Plan discarded/)
      await a.call("release", { hold, allow: i % 2 === 0 })
      expect((await refusal(closing)).message).toMatch(NOT_APPLIED)
      const doc = planDocument(ws.dir, planPath)
      expect(doc.frontmatter.status).toBe("abandoned")
      // The close's narrative was never written: only the discard's.
      expect(doc.text).not.toMatch(/^## \S+ — closed$/m)
      expect(doc.text).toMatch(/^## \S+ — abandoned$/m)
      expect((await planRows(ws.dir)).find((row) => row.planPath === planPath)?.state).toBe("abandoned")
    }
    await expectFileIsDatabase()
  })

  it("A ticks the odd tasks and B the even ones at the same time: every tick lands in the document and the database", async () => {
    const [a, b] = pair(await ws.start("A", "B"))
    const TASKS = 40
    const PLANS = 3
    for (let p = 0; p < PLANS; p++) {
      const session = `race5-${p}`
      const { planPath } = await a.call("write", { session, body: planBody(`Ticks ${session}`, TASKS) })
      await b.call("approve", { session, dialog: "allow" })
      const odd = Array.from({ length: TASKS / 2 }, (_, i) => 2 * i + 1)
      const even = odd.map((n) => n + 1)
      // Each process ticks its own tasks one after another, as one model would, and the two processes race each other;
      // the last plan gets every tick of both at once, so each process's own queue is raced too.
      const burst = p === PLANS - 1
      const tickAll = async (runtime: RuntimeProcess, tasks: number[]) => {
        if (burst) await Promise.all(tasks.map((task) => runtime.call("tick", { session, task })))
        else for (const task of tasks) await runtime.call("tick", { session, task })
      }
      await Promise.all([tickAll(a, odd), tickAll(b, even)])
      const doc = planDocument(ws.dir, planPath)
      expect(doc.tasks.filter((t) => !t.ticked).map((t) => t.number)).toEqual([])
      const row = (await planRows(ws.dir)).find((r) => r.planPath === planPath)
      expect(row?.tasks.filter((t) => !t.ticked).map((t) => t.number)).toEqual([])
      // One tick transition per task: none lost, none applied twice.
      const ticks = (await planTransitions(ws.dir, planPath)).filter((t) => t.event === "plan.tick")
      expect(ticks).toHaveLength(TASKS)
      await expectFileIsDatabase()
      // The close gate (every task ticked) is asked of the latest record, so B may close what A half ticked.
      expect((await b.call("close", { session, checks: PASSING_CHECKS, dialog: "allow" })).output).toMatch(/^Plan closed/)
      expect(planDocument(ws.dir, planPath).frontmatter.status).toBe("done")
    }
    await expectFileIsDatabase()
  })
})
