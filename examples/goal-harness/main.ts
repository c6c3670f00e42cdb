import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { GateRefusal, GoalService, LifecycleHost, defineGoalLifecycle, parseGoalContract } from "forgecharts/services"
import { CommandChecks } from "./command.checks"
import { consoleDialog } from "./console.dialog"
import { MemoryDocumentFiles } from "./memory.files"
import { MemoryLifecycleRepository } from "./memory.repository"

// A goal outside opencode: the goal lifecycle from the built package, on this harness's own tiny adapters (a
// repository and documents in memory, checks run with /bin/sh, a console dialog). The goal is armed by the user's
// own command, its completion is refused while its check fails (fail-closed: the host runs every check itself), and
// completes through the dialog once the check passes.

const print = (line: string) => console.log(line)
const workspace = mkdtempSync(path.join(tmpdir(), "goal-harness-"))
const clock = { now: () => Date.now() }
const log = { info: () => {}, warn: (message: string) => print(`warn: ${message}`), error: (message: string) => print(`error: ${message}`) }
const repository = new MemoryLifecycleRepository()
const host = new LifecycleHost({ repository: async () => repository, clock, log })
const files = new MemoryDocumentFiles()
const lifecycle = defineGoalLifecycle(host, {
  files,
  clock,
  log,
  prompter: { send: async (session, text) => print(`brief to ${session}: ${text.split("\n")[0]}`) },
})
const goals = new GoalService({ lifecycle, files, clock, log, checks: new CommandChecks(workspace), hasDraftPlan: async () => false })

const session = "harness-session"
const attestations = [{ criterion: "NOTES.md exists", evidence: "the release note is written" }]
try {
  const contract = parseGoalContract('write the release note --check "test -f NOTES.md" --success "NOTES.md exists"')
  print((await goals.write(session, contract, { by: "user" })).output)
  try {
    await goals.complete(session, attestations, consoleDialog(true, print))
    throw new Error("the completion passed while its check failed")
  } catch (error) {
    if (!(error instanceof GateRefusal)) throw error
    print(`refused: ${error.message.split("\n")[0]}`)
  }
  writeFileSync(path.join(workspace, "NOTES.md"), "# Release notes\n")
  print((await goals.complete(session, attestations, consoleDialog(true, print))).output)
  for (const t of await repository.listTransitions({ machineId: "goal" })) print(`transition: ${t.from} --${t.event}--> ${t.to}`)
} finally {
  rmSync(workspace, { recursive: true, force: true })
}
