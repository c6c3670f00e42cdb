import { driverLineText } from "../machines/driver.claim"
import { jobDriverLineText } from "../machines/job/job.gates"
import { isSameProcessAt } from "../adapters/process/job.hosts"
import { isIdentityAlive } from "../adapters/process/process.identity"
import { SqliteDriverClaimStore } from "../adapters/storage/driver.claim.repository"
import { existsSync } from "node:fs"
import path from "node:path"
import { parseArgs } from "node:util"
import { findBwrap, probeBwrap } from "../adapters/sandbox/bwrap.probe"
import { databasePath } from "../adapters/storage/database.path"
import { openLifecycleStore } from "../adapters/storage/lifecycle.store"

// `forgecharts`: inspect a workspace's Forge state from a terminal, without opencode running.

const USAGE = `usage: forgecharts <command> [workspace]

commands:
  status [workspace]            whether the loop sandbox starts here, then live and finished lifecycle instances
                                (default workspace: the current folder)
  log [workspace] [--machine m] [--instance id] [--session id]
                                the transition log, oldest first
  db [workspace]                print the path of the workspace's database
  viz [machine] [--format mermaid|svg|json]
                                the machines' diagrams (Mermaid, all of them by default), one machine's SVG, or one
                                machine's config as JSON for Stately's editor and createMachine
`

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      machine: { type: "string" },
      instance: { type: "string" },
      session: { type: "string" },
      format: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  })
  const [command, workspaceArg] = positionals
  if (values.help || command === undefined) {
    process.stdout.write(USAGE)
    return command === undefined && !values.help ? 2 : 0
  }
  if (command === "viz") {
    // The machines and their renderers load only for viz: every other command starts without them.
    const { vizText } = await import("./cli.viz")
    const outcome = await vizText(workspaceArg, values.format)
    if ("error" in outcome) {
      process.stderr.write(`forgecharts viz: ${outcome.error}\n`)
      return 2
    }
    process.stdout.write(outcome.text)
    return 0
  }
  const workspace = path.resolve(workspaceArg ?? ".")
  if (command === "db") {
    process.stdout.write(`${databasePath(workspace)}\n`)
    return 0
  }
  if (command !== "status" && command !== "log") {
    process.stderr.write(`forgecharts: unknown command "${command}"\n\n${USAGE}`)
    return 2
  }
  if (command === "status") process.stdout.write(`${await sandboxLine()}\n`)
  if (!existsSync(databasePath(workspace))) {
    // Inspection never creates state: no database means Forge has not run in this workspace.
    process.stdout.write(`no Forge database in ${workspace} (expected ${databasePath(workspace)})\n`)
    return 0
  }
  const store = await openLifecycleStore(workspace)
  try {
    if (command === "status") {
      const damaged: string[] = []
      const rows = await store.repository.loadSnapshots({
        includeTerminal: true,
        onDamaged: (d) => damaged.push(`${d.machineId}\tdamaged\t${d.instanceId}\t${d.problem}\n`),
      })
      if (rows.length === 0 && damaged.length === 0) process.stdout.write("no lifecycle instances in this workspace\n")
      for (const line of damaged) process.stdout.write(line)
      const claims = await new SqliteDriverClaimStore(store.connection).list()
      const claimOf = (machineId: string, instanceId: string) => claims.find((c) => c.machineId === machineId && c.instanceId === instanceId) ?? null
      for (const row of rows) {
        const when = new Date(row.updatedAt).toISOString()
        // A goal that runs its loop and a running loop need a driver: who it is, or why nobody drives it.
        const needsDriver = !row.terminal && ((row.machineId === "goal" && row.state.startsWith("active")) || row.machineId === "loop")
        const claim = needsDriver ? claimOf(row.machineId, row.instanceId) : null
        const driver = needsDriver
          ? `\t${driverLineText(claim, claim !== null && isIdentityAlive(claim.holder), Date.now())}`
          : row.machineId === "job" && !row.terminal
            ? `\t${jobDriverLine(row.snapshot)}`
            : ""
        process.stdout.write(
          `${row.machineId}\t${row.state}${row.terminal ? " (final)" : ""}\t${row.instanceId}\tsession=${row.sessionId ?? "-"}\t${when}${driver}\n`,
        )
      }
    } else {
      const rows = await store.repository.listTransitions({
        ...(values.machine ? { machineId: values.machine } : {}),
        ...(values.instance ? { instanceId: values.instance } : {}),
        ...(values.session ? { sessionId: values.session } : {}),
      })
      for (const row of rows) {
        process.stdout.write(`${new Date(row.at).toISOString()}\t${row.machineId}\t${row.instanceId}\t${row.from} --${row.event}--> ${row.to}\n`)
      }
    }
    return 0
  } finally {
    await store.close()
  }
}

/** Whether a loop's passes can be confined on this machine (loop_start refuses while they cannot), and why not. */
async function sandboxLine(): Promise<string> {
  const bwrap = findBwrap()
  const problem = await probeBwrap(bwrap)
  if (problem === null) return `loop sandbox: bubblewrap starts here (${bwrap})`
  return `loop sandbox: cannot start here: ${problem}. loop_start and goal audits (/goal … --audit) refuse until bubblewrap works (apt install bubblewrap) or the plugin option loop.sandbox is "off"`
}

/** A job is driven by the opencode process that runs it (its host, in its record) while that process runs. */
function jobDriverLine(snapshot: unknown): string {
  const host = (snapshot as { context?: { host?: { pid?: unknown; startedAt?: unknown; instance?: unknown } } } | null)?.context?.host
  const { pid, startedAt, instance } = host ?? {}
  if (typeof pid !== "number" || typeof startedAt !== "number" || typeof instance !== "string") return jobDriverLineText(null, false)
  return jobDriverLineText({ pid, instance }, isSameProcessAt(pid, startedAt))
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`forgecharts: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(1)
  },
)
