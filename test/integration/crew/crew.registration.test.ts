import { describe, expect, it } from "vitest"
import { type CrewBeginRequest, NoCrewError } from "../../../services/crew/crew.service"
import { GateRefusal } from "../../../services/lifecycle/gate.refusal"
import { allow } from "../plan/plan.helpers"
import { COMPLETE, REGISTRATION, ROSTER, SESSION, SUBTASKS, neverAsked, useCrewHarness } from "./crew.harness"

// The crew service over the real workspace: registration, its refusals, and the user's choices.

describe("crew service: registration and the user's choices", () => {
  const { goal, roster, open, fresh, record, frontmatter, history, crewFiles, row, transitions } = useCrewHarness()

  describe("registration", () => {
    it("writes the record and answers with its path first, the lineage, the roster and the three choices", async () => {
      const p = await fresh()
      const { crewPath, output } = await p.service.begin(SESSION, { ...REGISTRATION, lineage: " .opencode/plan/2026-11-29-parser.md " }, neverAsked)
      expect(crewPath).toBe(".opencode/crew/2026-11-30-ship-the-parser.md")
      const lines = output.split("\n")
      expect(lines[0]).toBe(`Crew record: ${crewPath}`)
      expect(lines[1]).toBe("Lineage: .opencode/plan/2026-11-29-parser.md")
      expect(output).toContain("Declared plan (2 subtasks):\n1. Write the parser → forge-coder (owns src/parser.ts)\n2. Survey prior art\n")
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
      expect(text).toContain("## Declared Plan\n\n1. Write the parser (agent: forge-coder) — owns src/parser.ts\n2. Survey prior art\n")
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
})
