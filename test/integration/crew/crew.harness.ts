import { appendFileSync, readFileSync, readdirSync } from "node:fs"
import path from "node:path"
import { afterEach } from "vitest"
import { FsCrewFiles } from "../../../adapters/workspace/crew.files"
import type { CrewSubtask, CrewVerdict } from "../../../machines/crew/crew.gates"
import { crewFrontmatterCodec } from "../../../services/crew/crew.frontmatter"
import { defineCrewLifecycle } from "../../../services/crew/crew.lifecycle"
import { CREW_DIR } from "../../../services/crew/crew.paths"
import type { CrewRoster } from "../../../services/crew/crew.ports"
import { CrewService } from "../../../services/crew/crew.service"
import type { Confirm } from "../../../services/lifecycle/lifecycle.ports"
import { type OpenedWorkspace, composeWorkspace } from "../../../src/runtime"
import { tempDir } from "../../temp.dir"
import { memoryLogger } from "../plan/plan.helpers"

// The crew service's test harness: one opencode process per open() on a temp workspace (SQLite through the one
// lifecycle host, real crew records in `.opencode/crew/`). Only the roster and the goal's governance are stated.

export const T0 = Date.parse("2026-11-30T03:00:00.000Z")
export const SESSION = "ses_crew"

export const ROSTER: CrewRoster = {
  text: "project (.opencode/forge.json, primary):\n- forge-coder: writes and runs code\n- forge-research: reads and reports",
  dispatchable: 2,
  findings: [],
}
export const SUBTASKS: CrewSubtask[] = [
  { title: "Write the parser", agent: "forge-coder", files: ["src/parser.ts"] },
  { title: "Survey prior art", agent: null, files: [] },
]
export const REGISTRATION = { objective: "Ship the parser\nwith a grammar for the config files", subtasks: SUBTASKS }
export const COMPLETE: CrewVerdict[] = [
  { subtask: "Write the parser", verdict: "PASS", evidence: "npm test: 40 passed", failures: [] },
  { subtask: "Survey prior art", verdict: "FAIL", evidence: "the papers are paywalled", failures: ["first: paywall", "retry: paywall again"] },
]

/** The confirm of a call that must not ask the user. */
export const neverAsked: Confirm = async () => {
  throw new Error("this call must not ask the user")
}

/** FsCrewFiles that, once armed, edit the record on disk right after Forge read it (an editor saving in between). */
export class EditingCrewFiles extends FsCrewFiles {
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

export interface Process {
  rt: OpenedWorkspace
  service: CrewService
  files: EditingCrewFiles
}

/** Registers its teardown with the calling test file; call it inside a describe. */
export function useCrewHarness() {
  const state = { dir: "" }
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
    const workspace = composeWorkspace({ workspace: state.dir, clock, log })
    const files = new EditingCrewFiles(state.dir)
    const lifecycle = defineCrewLifecycle(workspace.host, { files, clock })
    const service = new CrewService({ lifecycle, files, clock, log, roster: { roster: async () => roster.current }, isGoverned: async () => goal.governs })
    const rt = await workspace.open()
    const process = { rt, service, files }
    opened.push(process)
    return process
  }

  async function fresh(): Promise<Process> {
    state.dir = tempDir("forge-crew-service-")
    goal.governs = false
    roster.current = ROSTER
    return open()
  }

  const record = (crewPath: string) => readFileSync(path.join(state.dir, crewPath), "utf8")
  const frontmatter = (crewPath: string) => crewFrontmatterCodec.parse(record(crewPath), crewPath).fields
  const history = (crewPath: string) => (record(crewPath).split(/^## History$/m)[1] ?? "").trim()
  const crewFiles = () => readdirSync(path.join(state.dir, CREW_DIR), { withFileTypes: true }).map((e) => e.name)
  const row = async (p: Process, crewPath: string) => p.rt.repository.getSnapshot("crew", crewPath)
  const transitions = async (p: Process, crewPath: string) =>
    (await p.rt.repository.listTransitions({ instanceId: crewPath })).map((t) => `${t.from}|${t.event}|${t.to}`)
  return {
    goal,
    roster,
    open,
    fresh,
    record,
    frontmatter,
    history,
    crewFiles,
    row,
    transitions,
    /** Closes one process early (a restart): its teardown is done. */
    async closeProcess(p: Process): Promise<void> {
      await p.rt.close()
      opened.splice(opened.indexOf(p), 1)
    },
    /** The workspace of the newest fresh(). */
    dir: () => state.dir,
  }
}
