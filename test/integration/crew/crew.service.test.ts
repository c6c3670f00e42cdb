import { appendFileSync, readFileSync, readdirSync, rmSync } from "node:fs"
import path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { FsCrewFiles } from "../../../adapters/workspace/crew.files"
import type { CrewSubtask, CrewVerdict } from "../../../machines/crew.gates"
import { crewFrontmatterCodec } from "../../../services/crew/crew.frontmatter"
import { defineCrewLifecycle } from "../../../services/crew/crew.lifecycle"
import { CREW_DIR } from "../../../services/crew/crew.paths"
import type { CrewRoster } from "../../../services/crew/crew.ports"
import { restoreCrews } from "../../../services/crew/crew.restore"
import { type CrewBeginRequest, CrewService, NoCrewError } from "../../../services/crew/crew.service"
import { DocumentChangedError } from "../../../services/documents/document.errors"
import { GateRefusal } from "../../../services/lifecycle/gate.refusal"
import type { Confirm } from "../../../services/lifecycle/lifecycle.ports"
import { type ComposedRuntime, composeWorkspace } from "../../../src/runtime"
import { tempDir } from "../../temp.dir"
import { allow, memoryLogger } from "../plan/plan.helpers"

// The crew service over the real workspace: SQLite through the one lifecycle host, real crew records in
// `.opencode/crew/`. Only the roster and the goal's governance are stated by the test.

const T0 = Date.parse("2026-11-30T03:00:00.000Z")
const SESSION = "ses_crew"

const ROSTER: CrewRoster = {
  text: "project (.opencode/forge.json, primary):\n- forge-coder: writes and runs code\n- forge-research: reads and reports",
  dispatchable: 2,
  findings: [],
}
const SUBTASKS: CrewSubtask[] = [
  { title: "Write the parser", agent: "forge-coder" },
  { title: "Survey prior art", agent: null },
]
const REGISTRATION = { objective: "Ship the parser\nwith a grammar for the config files", subtasks: SUBTASKS }
const COMPLETE: CrewVerdict[] = [
  { subtask: "Write the parser", verdict: "PASS", evidence: "npm test: 40 passed", failures: [] },
  { subtask: "Survey prior art", verdict: "FAIL", evidence: "the papers are paywalled", failures: ["first: paywall", "retry: paywall again"] },
]

/** The confirm of a call that must not ask the user. */
const neverAsked: Confirm = async () => {
  throw new Error("this call must not ask the user")
}

/** FsCrewFiles that, once armed, edit the record on disk right after Forge read it (an editor saving in between). */
class EditingCrewFiles extends FsCrewFiles {
  editAfterRead: string | undefined
  constructor(private readonly dir: string) {
    super(dir)
  }
  override async read(docPath: string): Promise<string | undefined> {
    const text = await super.read(docPath)
    const edit = this.editAfterRead
    this.editAfterRead = undefined
    if (edit !== undefined) appendFileSync(path.join(this.dir, docPath), edit)
    return text
  }
}

interface Process {
  rt: ComposedRuntime
  service: CrewService
  files: EditingCrewFiles
}

describe("crew service", () => {
  let dir: string
  const goal = { governs: false }
  const roster = { current: ROSTER }
  const opened: Process[] = []
  afterEach(async () => {
    for (const p of opened.splice(0)) await p.rt.close()
  })

  /** One opencode process on the workspace: composed, the crew lifecycle defined on its one host, the database open. */
  async function open(): Promise<Process> {
    const log = memoryLogger()
    const clock = { now: () => T0 }
    const workspace = composeWorkspace({ workspace: dir, clock, log })
    const files = new EditingCrewFiles(dir)
    const lifecycle = defineCrewLifecycle(workspace.host, { files, clock })
    const service = new CrewService({ lifecycle, files, clock, log, roster: { roster: async () => roster.current }, isGoverned: async () => goal.governs })
    const rt = await workspace.open()
    const process = { rt, service, files }
    opened.push(process)
    return process
  }

  async function fresh(): Promise<Process> {
    dir = tempDir("forge-crew-service-")
    goal.governs = false
    roster.current = ROSTER
    return open()
  }

  const record = (crewPath: string) => readFileSync(path.join(dir, crewPath), "utf8")
  const frontmatter = (crewPath: string) => crewFrontmatterCodec.parse(record(crewPath), crewPath).fields
  const history = (crewPath: string) => (record(crewPath).split(/^## History$/m)[1] ?? "").trim()
  const crewFiles = () => readdirSync(path.join(dir, CREW_DIR), { withFileTypes: true }).map((e) => e.name)
  const row = async (p: Process, crewPath: string) => p.rt.repository.getSnapshot("crew", crewPath)
  const transitions = async (p: Process, crewPath: string) =>
    (await p.rt.repository.listTransitions({ instanceId: crewPath })).map((t) => `${t.from}|${t.event}|${t.to}`)

  describe("registration", () => {
    it("writes the record and answers with its path first, the lineage, the roster and the three choices", async () => {
      const p = await fresh()
      const { crewPath, output } = await p.service.begin(SESSION, { ...REGISTRATION, lineage: " .opencode/plan/2026-11-29-parser.md " }, neverAsked)
      expect(crewPath).toBe(".opencode/crew/2026-11-30-ship-the-parser.md")
      const lines = output.split("\n")
      expect(lines[0]).toBe(`Crew record: ${crewPath}`)
      expect(lines[1]).toBe("Lineage: .opencode/plan/2026-11-29-parser.md")
      expect(output).toContain("Declared plan (2 subtasks):\n1. Write the parser → forge-coder\n2. Survey prior art")
      expect(output).toContain(`Dispatchable workers by pool:\n${ROSTER.text}`)
      expect(output).toContain("PENDING — nothing runs yet: every task dispatch of this session is refused until the user chooses.")
      expect(output).toContain(`Tell the user the crew record path (${crewPath}) and these three choices, then end your turn:`)
      expect(output).toContain('1. supervised waves now — then call crew_begin {execution: "waves"}')
      expect(output).toContain('2. convert to a goal contract — then call crew_begin {execution: "goal"}')
      expect(output).toContain("3. standby — nothing to call")

      expect(frontmatter(crewPath)).toEqual({
        status: "pending",
        session: SESSION,
        lineage: ".opencode/plan/2026-11-29-parser.md",
        created: "2026-11-30T03:00:00.000Z",
        updated: "2026-11-30T03:00:00.000Z",
      })
      const text = record(crewPath)
      expect(text).toContain("# Crew: Ship the parser\n")
      expect(text).toContain("## Objective\n\n    Ship the parser\n    with a grammar for the config files\n")
      expect(text).toContain("## Declared Plan\n\n1. Write the parser (agent: forge-coder)\n2. Survey prior art\n")
      expect(text).toContain("## Roster at Registration\n\n    project (.opencode/forge.json, primary):\n    - forge-coder: writes and runs code\n")
      expect(history(crewPath)).toBe("- 2026-11-30T03:00:00.000Z registered: pending, waiting for the user's choice (waves, goal, or standby).")

      expect(p.service.liveFor(SESSION)?.value).toEqual({ pending: "standby" })
      expect(await p.service.dispatchRefusal(SESSION)).toMatch(/^crew pending belt: /)
      expect(await p.service.dispatchRefusal("ses_other"), "another session's task calls are free").toBeNull()
      expect((await row(p, crewPath))?.state).toBe("pending.standby")
    })

    it("is born armed under the session's goal: executing, no belt, the wave discipline in the answer", async () => {
      const p = await fresh()
      goal.governs = true
      const { crewPath, output } = await p.service.begin(SESSION, { ...REGISTRATION, execution: "waves" }, neverAsked)
      expect(output.split("\n")[0]).toBe(`Crew record: ${crewPath}`)
      expect(output).not.toContain("Lineage:")
      expect(output).toContain("EXECUTING — born armed under the session's active goal. Dispatch the first wave now.")
      expect(output).toContain("Run the declared subtasks in waves")
      expect(frontmatter(crewPath)).toMatchObject({ status: "executing", execution: "waves" })
      expect(frontmatter(crewPath).lineage).toBeUndefined()
      expect(history(crewPath)).toBe("- 2026-11-30T03:00:00.000Z registered and armed under the session's active goal (supervised waves).")
      expect(await p.service.dispatchRefusal(SESSION)).toBeNull()
      expect(await transitions(p, crewPath)).toEqual(["(none)|xstate.init|executing.working"])
    })

    it("takes the next free name when the day's slug is taken", async () => {
      const p = await fresh()
      const first = await p.service.begin(SESSION, REGISTRATION, neverAsked)
      goal.governs = true
      await p.service.abandon(SESSION, "re-shard", neverAsked)
      const second = await p.service.begin(SESSION, REGISTRATION, neverAsked)
      expect(first.crewPath).toBe(".opencode/crew/2026-11-30-ship-the-parser.md")
      expect(second.crewPath).toBe(".opencode/crew/2026-11-30-ship-the-parser-2.md")
      expect(frontmatter(first.crewPath).status).toBe("abandoned")
      expect(frontmatter(second.crewPath).status).toBe("pending")
    })
  })

  describe("registration refusals (nothing is written)", () => {
    it.each<[string, CrewBeginRequest, string]>([
      ["no objective", { objective: "  ", subtasks: SUBTASKS }, "crew_begin: the crew needs an objective."],
      ["no subtasks at all", { objective: "x", subtasks: [] }, "crew_begin: the crew declares no subtask: give each piece of work one titled subtask."],
      ["subtasks left out", { objective: "x" }, "crew_begin: the crew declares no subtask: give each piece of work one titled subtask."],
      [
        "empty and duplicate titles",
        {
          objective: "x",
          subtasks: [
            { title: "A", agent: null },
            { title: " ", agent: null },
            { title: "a ", agent: "forge-coder" },
          ],
        },
        'crew_begin: subtask 2 has an empty title; subtask 3 repeats the title "a" (titles must be unique).',
      ],
      [
        "no objective and duplicate titles",
        {
          subtasks: [
            { title: "A", agent: null },
            { title: "A", agent: null },
          ],
        },
        'crew_begin: the crew needs an objective; subtask 2 repeats the title "A" (titles must be unique).',
      ],
    ])("%s", async (_, request, message) => {
      const p = await fresh()
      await expect(p.service.begin(SESSION, request, neverAsked)).rejects.toThrow(message)
      expect(() => crewFiles()).toThrow(/ENOENT/)
      expect(p.service.liveFor(SESSION)).toBeUndefined()
    })

    it("refuses registration and execution in one call without a goal: the user chooses after seeing the plan", async () => {
      const p = await fresh()
      for (const execution of ["waves", "goal"] as const) {
        await expect(p.service.begin(SESSION, { ...REGISTRATION, execution }, neverAsked)).rejects.toThrow(
          "crew_begin: registration and execution in one call is legal only under an active goal of this session. Register without execution, show the user the record path and the choices, and end your turn: the user picks waves, goal, or standby.",
        )
      }
      expect(() => crewFiles()).toThrow(/ENOENT/)
    })

    it('refuses execution "goal" under a goal: the goal governs it already', async () => {
      const p = await fresh()
      goal.governs = true
      await expect(p.service.begin(SESSION, { ...REGISTRATION, execution: "goal" }, neverAsked)).rejects.toThrow(
        'crew_begin: the session\'s active goal governs it already, so execution "goal" is refused. Register with execution "waves" (born armed).',
      )
      expect(() => crewFiles()).toThrow(/ENOENT/)
    })

    it("refuses a second live crew in the session, naming the first and the ways to end it", async () => {
      const p = await fresh()
      const first = await p.service.begin(SESSION, REGISTRATION, neverAsked)
      await expect(p.service.begin(SESSION, { objective: "Another", subtasks: SUBTASKS }, neverAsked)).rejects.toThrow(
        `this session already has a live crew: ${first.crewPath} (pending). Arm it (crew_begin with execution only), close it (crew_close with verdicts), or abandon it (crew_close with abandon: true) before registering another.`,
      )
      expect(crewFiles()).toEqual(["2026-11-30-ship-the-parser.md"])
      // Another session is free to register its own.
      const other = await p.service.begin("ses_other", { objective: "Another", subtasks: SUBTASKS }, neverAsked)
      expect(other.crewPath).toBe(".opencode/crew/2026-11-30-another.md")
    })

    it("refuses a second live crew a second process registered, through the shared database", async () => {
      const a = await fresh()
      const b = await open()
      const first = await a.service.begin(SESSION, REGISTRATION, neverAsked)
      await expect(b.service.begin(SESSION, { objective: "Another", subtasks: SUBTASKS }, neverAsked)).rejects.toThrow(
        `this session already has a live crew: ${first.crewPath} (pending)`,
      )
      expect(await b.service.dispatchRefusal(SESSION), "the other process's belt holds too").toMatch(/^crew pending belt: /)
    })

    it("with zero dispatchable workers: the setup guidance naming both forge.json paths, and the findings", async () => {
      const p = await fresh()
      roster.current = { text: "(none)", dispatchable: 0, findings: [".opencode/forge.json:3: agents.coder.shape must be read or write"] }
      const refused = p.service.begin(SESSION, REGISTRATION, neverAsked)
      await expect(refused).rejects.toThrow(/^A crew needs forge-\* workers, and none are configured\./)
      await expect(refused).rejects.toThrow("- the project: .opencode/forge.json (the nearest one walking up from the workspace")
      await expect(refused).rejects.toThrow("- every project of this user: ~/.config/opencode/forge.json.")
      await expect(refused).rejects.toThrow("forge.json findings:\n- .opencode/forge.json:3: agents.coder.shape must be read or write")
      await expect(refused).rejects.toThrow("only on their explicit go-ahead in this conversation")
      expect(() => crewFiles()).toThrow(/ENOENT/)
    })

    it("carrying out a choice needs a live crew, and a choice", async () => {
      const p = await fresh()
      await expect(p.service.begin(SESSION, { execution: "waves" }, neverAsked)).rejects.toBeInstanceOf(NoCrewError)
      await expect(p.service.begin(SESSION, {}, neverAsked)).rejects.toThrow(/^crew_begin needs objective and subtasks to register a crew, or execution/)
      await expect(p.service.close(SESSION, COMPLETE, neverAsked)).rejects.toThrow(`no live crew in this session (${SESSION}).`)
      await expect(p.service.abandon(SESSION, "x", neverAsked)).rejects.toBeInstanceOf(NoCrewError)
    })
  })

  describe("the user's choices", () => {
    it("arms through the crew_begin dialog: the belt lifts, the record says waves", async () => {
      const p = await fresh()
      const { crewPath } = await p.service.begin(SESSION, REGISTRATION, neverAsked)
      const asked: { permission: string; subject: string; summary: string }[] = []
      const kept = await p.service.begin(SESSION, { execution: "waves" }, async (d) => {
        asked.push(d)
        return false
      })
      expect(kept.output).toBe(`The user did not arm ${crewPath}; it stays pending (task dispatches refused). Ask what to change, or wait.`)
      expect(asked).toEqual([
        {
          permission: "crew_begin",
          subject: crewPath,
          summary:
            'Run crew "Ship the parser" in supervised waves (2 subtasks: Write the parser; Survey prior art)? Its task dispatches are refused until you allow.',
        },
      ])
      expect(await p.service.dispatchRefusal(SESSION)).not.toBeNull()

      const armed = await p.service.begin(SESSION, { execution: "waves" }, allow)
      expect(armed.output).toMatch(new RegExp(`^Crew armed: ${crewPath.replace(/\./g, "\\.")} runs in supervised waves; task dispatches are open\\.`))
      expect(await p.service.dispatchRefusal(SESSION)).toBeNull()
      expect(frontmatter(crewPath)).toMatchObject({ status: "executing", execution: "waves" })
      expect(history(crewPath)).toContain("- 2026-11-30T03:00:00.000Z armed: supervised waves")
      expect(await transitions(p, crewPath)).toEqual([
        "(none)|xstate.init|pending.standby",
        "pending.standby|crew.arm|pending.arming",
        "pending.arming|dialog.reject|pending.standby",
        "pending.standby|crew.arm|pending.arming",
        "pending.arming|dialog.allow|executing.working",
      ])
    })

    it("converts to a goal: the crew ends as a conversion record and the answer drafts the goal", async () => {
      const p = await fresh()
      const { crewPath } = await p.service.begin(SESSION, REGISTRATION, neverAsked)
      const converted = await p.service.begin(SESSION, { execution: "goal" }, neverAsked)
      expect(converted.output).toContain(`Crew converted: ${crewPath} ends here as a conversion record.`)
      expect(converted.output).toContain("goal_write (arm=true)")
      expect(converted.output).toContain("1. Write the parser\n2. Survey prior art")
      expect(frontmatter(crewPath)).toMatchObject({ status: "converted", execution: "goal" })
      expect(history(crewPath)).toContain("converted to a goal")
      expect(p.service.liveFor(SESSION)).toBeUndefined()
      expect(await p.service.dispatchRefusal(SESSION)).toBeNull()
    })

    it("a pending crew governed later refuses the conversion with the machine's words", async () => {
      const p = await fresh()
      await p.service.begin(SESSION, REGISTRATION, neverAsked)
      goal.governs = true
      const refused = p.service.begin(SESSION, { execution: "goal" }, neverAsked)
      await expect(refused).rejects.toBeInstanceOf(GateRefusal)
      await expect(refused).rejects.toThrow(/runs under the session's active goal, which governs it already: execution "goal" is refused/)
    })

    it("abandons a pending crew through the crew_close dialog, with the reason in the record; the session is free again", async () => {
      const p = await fresh()
      const { crewPath } = await p.service.begin(SESSION, REGISTRATION, neverAsked)
      const asked: string[] = []
      const kept = await p.service.abandon(SESSION, "wrong decomposition", async (d) => {
        asked.push(`${d.permission}: ${d.summary}`)
        return false
      })
      expect(kept.output).toBe(`The user kept ${crewPath}.`)
      expect(asked).toEqual(['crew_close: Abandon crew "Ship the parser" (pending, no verdicts)? Reason: wrong decomposition'])
      const gone = await p.service.abandon(SESSION, "wrong decomposition\nsplit the parser in two", allow)
      expect(gone.output).toBe(`Crew abandoned: ${crewPath}. The session is free for a new crew_begin with the corrected plan.`)
      expect(frontmatter(crewPath).status).toBe("abandoned")
      expect(history(crewPath)).toContain("- 2026-11-30T03:00:00.000Z abandoned: wrong decomposition / split the parser in two")
      expect((await row(p, crewPath))?.terminal).toBe(true)
      await p.service.begin(SESSION, { objective: "Ship the parser, split", subtasks: SUBTASKS }, neverAsked)
    })
  })

  describe("the close", () => {
    /** An armed crew (under a goal, so no dialog), and the governance switched as the test says. */
    async function armed(governed: boolean): Promise<{ p: Process; crewPath: string }> {
      const p = await fresh()
      goal.governs = true
      const { crewPath } = await p.service.begin(SESSION, { ...REGISTRATION, execution: "waves" }, neverAsked)
      goal.governs = governed
      return { p, crewPath }
    }

    it.each([
      [
        "an undeclared subtask",
        [...COMPLETE, { subtask: "Refactor the lexer", verdict: "PASS", evidence: "done", failures: [] }],
        'undeclared subtasks "Refactor the lexer" (the report must follow the declared plan: fold a discovery into an existing verdict, or abandon and register a new crew)',
      ],
      ["a missing verdict", [COMPLETE[0]], 'declared subtasks without a verdict: "Survey prior art"'],
      ["a repeated verdict", [...COMPLETE, { ...COMPLETE[0], subtask: "write the  parser" }], 'subtasks given more than one verdict: "Write the parser"'],
      ["a verdict without evidence", [{ ...COMPLETE[0], evidence: " " }, COMPLETE[1]], 'verdicts without evidence: "Write the parser"'],
      [
        "a FAIL with one failure report",
        [COMPLETE[0], { ...COMPLETE[1], failures: ["first: paywall"] }],
        `FAIL verdicts without both failure reports (2: the first attempt's and the retry's): "Survey prior art"`,
      ],
    ] as const)("refuses a report with %s, governed or not, and writes nothing", async (_, report, reason) => {
      for (const governed of [false, true]) {
        const { p, crewPath } = await armed(governed)
        const before = record(crewPath)
        const refused = p.service.close(SESSION, [...report] as CrewVerdict[], neverAsked)
        await expect(refused).rejects.toBeInstanceOf(GateRefusal)
        await expect(refused).rejects.toThrow(`crew close gate: the report of ${crewPath} does not match its declared plan — ${reason}.`)
        expect(record(crewPath)).toBe(before)
        expect(p.service.liveFor(SESSION)?.value).toEqual({ executing: "working" })
      }
    })

    it("closes through the crew_close dialog without a goal; the verdicts go into the record", async () => {
      const { p, crewPath } = await armed(false)
      const summaries: string[] = []
      const kept = await p.service.close(SESSION, COMPLETE, async (d) => {
        summaries.push(`${d.permission}: ${d.summary}`)
        return false
      })
      expect(kept.output).toBe(`The user did not confirm the close of ${crewPath}; it stays armed. Ask what is missing.`)
      expect(summaries).toEqual([
        'crew_close: Close crew "Ship the parser"? PASS Write the parser: npm test: 40 passed; FAIL Survey prior art: the papers are paywalled',
      ])
      const done = await p.service.close(SESSION, COMPLETE, allow)
      expect(done.output).toBe(
        [
          `Crew closed: ${crewPath} — 1 PASS, 1 FAIL.`,
          "- PASS Write the parser: npm test: 40 passed",
          "- FAIL Survey prior art: the papers are paywalled",
        ].join("\n"),
      )
      expect(frontmatter(crewPath).status).toBe("closed")
      expect(history(crewPath)).toContain(
        [
          "- 2026-11-30T03:00:00.000Z closed with verdicts:",
          '  - PASS "Write the parser": npm test: 40 passed',
          '  - FAIL "Survey prior art": the papers are paywalled',
          "    - failure report 1: first: paywall",
          "    - failure report 2: retry: paywall again",
        ].join("\n"),
      )
      expect(p.service.liveFor(SESSION)).toBeUndefined()
    })

    it("closes at once under a goal: no dialog", async () => {
      const { p, crewPath } = await armed(true)
      const done = await p.service.close(SESSION, COMPLETE, neverAsked)
      expect(done.output).toMatch(/^Crew closed: /)
      expect(frontmatter(crewPath).status).toBe("closed")
      expect((await row(p, crewPath))?.terminal).toBe(true)
    })

    it("a dialog answer that throws counts as no", async () => {
      const { p, crewPath } = await armed(false)
      const kept = await p.service.close(SESSION, COMPLETE, async () => {
        throw new Error("the TUI went away")
      })
      expect(kept.output).toMatch(/^The user did not confirm the close/)
      expect(frontmatter(crewPath).status).toBe("executing")
      expect(p.service.liveFor(SESSION)?.value).toEqual({ executing: "working" })
    })
  })

  it("a record edited between Forge's read and its write is never overwritten: the step is not committed", async () => {
    const p = await fresh()
    const { crewPath } = await p.service.begin(SESSION, REGISTRATION, neverAsked)
    const transitionsBefore = await transitions(p, crewPath)
    goal.governs = true
    p.files.editAfterRead = "\nA note the user saved in their editor.\n"
    const refused = p.service.begin(SESSION, { execution: "waves" }, neverAsked)
    await expect(refused).rejects.toBeInstanceOf(DocumentChangedError)
    await expect(refused).rejects.toThrow(`${crewPath} changed on disk while Forge was updating it`)
    // The edit stands; the crew, its row and its log are as they were.
    expect(record(crewPath)).toMatch(/A note the user saved in their editor\.\n$/)
    expect(frontmatter(crewPath)).toMatchObject({ status: "pending" })
    expect(frontmatter(crewPath).execution).toBeUndefined()
    expect(p.service.liveFor(SESSION)?.value).toEqual({ pending: "standby" })
    expect((await row(p, crewPath))?.state).toBe("pending.standby")
    expect(await transitions(p, crewPath)).toEqual(transitionsBefore)
    expect(await p.service.dispatchRefusal(SESSION)).toMatch(/^crew pending belt: /)
    // Asked again, the step takes the edit in and keeps it.
    await p.service.begin(SESSION, { execution: "waves" }, neverAsked)
    expect(record(crewPath)).toContain("A note the user saved in their editor.")
    expect(frontmatter(crewPath)).toMatchObject({ status: "executing", execution: "waves" })
    expect(await p.service.dispatchRefusal(SESSION)).toBeNull()
  })

  it("an allowed dialog whose record write fails closes as a no: the crew is not left in a dialog nobody can answer", async () => {
    const p = await fresh()
    const { crewPath } = await p.service.begin(SESSION, REGISTRATION, neverAsked)
    // The arm dialog opens (no record write), and the user's allow meets a record edited in between.
    p.files.editAfterRead = "\nedited while the dialog was open\n"
    await expect(p.service.begin(SESSION, { execution: "waves" }, allow)).rejects.toBeInstanceOf(DocumentChangedError)
    expect(p.service.liveFor(SESSION)?.value).toEqual({ pending: "standby" })
    expect(frontmatter(crewPath).status).toBe("pending")
    expect((await transitions(p, crewPath)).slice(1)).toEqual(["pending.standby|crew.arm|pending.arming", "pending.arming|dialog.reject|pending.standby"])
    // Asked again, it arms.
    expect((await p.service.begin(SESSION, { execution: "waves" }, allow)).output).toMatch(/^Crew armed: /)
    expect(record(crewPath)).toContain("edited while the dialog was open")
  })

  it("a crew whose record was deleted can still be abandoned (the way out its error names), and the session is free", async () => {
    const p = await fresh()
    const { crewPath } = await p.service.begin(SESSION, REGISTRATION, neverAsked)
    rmSync(path.join(dir, crewPath))
    const missing = `crew record ${crewPath} is missing: restore the file, or abandon the crew (crew_close with abandon: true)`
    await expect(p.service.begin(SESSION, { execution: "waves" }, allow)).rejects.toThrow(missing)
    expect(p.service.liveFor(SESSION)?.value, "the failed allow closed the dialog").toEqual({ pending: "standby" })
    const gone = await p.service.abandon(SESSION, "the record is gone", allow)
    expect(gone.output).toMatch(/^Crew abandoned: /)
    expect(p.service.liveFor(SESSION)).toBeUndefined()
    expect(await p.service.dispatchRefusal(SESSION)).toBeNull()
    expect((await row(p, crewPath))?.state).toBe("abandoned")
    expect(() => record(crewPath), "nothing is written in its place").toThrow(/ENOENT/)
  })

  describe("a restart", () => {
    it("restores a pending crew: the belt holds in the new process, and the record says it was restored", async () => {
      const first = await fresh()
      const { crewPath } = await first.service.begin(SESSION, REGISTRATION, neverAsked)
      await first.rt.close()
      opened.splice(opened.indexOf(first), 1)

      const second = await open()
      expect(second.service.liveFor(SESSION)).toBeUndefined()
      const report = await restoreCrews(second.service.lifecycle, second.rt.repository)
      expect(report).toEqual({ restored: [crewPath], problems: [] })
      expect(second.service.liveFor(SESSION)?.value).toEqual({ pending: "standby" })
      expect(await second.service.dispatchRefusal(SESSION)).toMatch(
        /^crew pending belt: crew \.opencode\/crew\/2026-11-30-ship-the-parser\.md is registered but not armed/,
      )
      expect(frontmatter(crewPath).status).toBe("pending")
      expect(history(crewPath).split("\n").at(-1)).toBe(
        "- 2026-11-30T03:00:00.000Z restored after a restart: a new opencode process took the crew over from the database; a dialog open before it was lost and must be asked again.",
      )
      expect((await transitions(second, crewPath)).at(-1)).toBe("pending.standby|crew.restored|pending.standby")
      // It goes on in the new process.
      const armed = await second.service.begin(SESSION, { execution: "waves" }, allow)
      expect(armed.output).toMatch(/^Crew armed: /)
      expect(await second.service.dispatchRefusal(SESSION)).toBeNull()
    })

    it("restores a crew whose dialog was open when the process died: the dialog is gone, the held report dropped", async () => {
      const first = await fresh()
      goal.governs = true
      const { crewPath } = await first.service.begin(SESSION, { ...REGISTRATION, execution: "waves" }, neverAsked)
      goal.governs = false
      // The close dialog opens and is never answered: the process dies with it.
      let opened_: () => void = () => undefined
      const dialogOpen = new Promise<void>((resolve) => {
        opened_ = resolve
      })
      void first.service.close(SESSION, COMPLETE, () => {
        opened_()
        return new Promise<boolean>(() => undefined)
      })
      await dialogOpen
      expect(first.service.liveFor(SESSION)?.context.pendingReport).toEqual(COMPLETE)
      await first.rt.close()
      opened.splice(opened.indexOf(first), 1)

      const second = await open()
      expect(await restoreCrews(second.service.lifecycle, second.rt.repository)).toEqual({ restored: [crewPath], problems: [] })
      const live = second.service.liveFor(SESSION)
      expect(live?.value).toEqual({ executing: "working" })
      expect(live?.context.pendingReport).toBeNull()
      expect(await second.service.dispatchRefusal(SESSION)).toBeNull()
      expect(history(crewPath).split("\n").at(-1)).toContain(
        "restored after a restart: a new opencode process took the crew over from the database; a dialog open before it was lost",
      )
      // The close is asked again in the new process.
      expect((await second.service.close(SESSION, COMPLETE, allow)).output).toMatch(/^Crew closed: /)
    })

    it("leaves a finished crew as history, and names a live crew whose record is gone", async () => {
      const first = await fresh()
      const done = await first.service.begin(SESSION, REGISTRATION, neverAsked)
      await first.service.begin(SESSION, { execution: "goal" }, neverAsked)
      const live = await first.service.begin("ses_other", { objective: "Other", subtasks: SUBTASKS }, neverAsked)
      await first.rt.close()
      opened.splice(opened.indexOf(first), 1)
      rmSync(path.join(dir, live.crewPath))

      const second = await open()
      const report = await restoreCrews(second.service.lifecycle, second.rt.repository)
      expect(report.restored).toEqual([live.crewPath])
      expect(report.problems).toEqual([
        {
          crewPath: live.crewPath,
          problem: `restored, but its record was not updated: crew record ${live.crewPath} is missing: restore the file, or abandon the crew (crew_close with abandon: true)`,
        },
      ])
      expect(second.service.lifecycle.snapshot(done.crewPath)).toBeUndefined()
      expect(await second.service.dispatchRefusal("ses_other")).toMatch(/^crew pending belt: /)
    })
  })
})
