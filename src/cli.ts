import { existsSync } from "node:fs"
import path from "node:path"
import { parseArgs } from "node:util"
import { databasePath } from "../adapters/storage/database.path"

// `forgecharts`: inspect a workspace's Forge state from a terminal, without opencode running. Exit codes: 0 done, 1 the
// command failed (an unreadable database, a check of doctor's), 2 a usage error (said on stderr with what to give instead).

const COMMANDS = {
  status: {
    usage: "status [workspace] [--json]",
    text: "whether the loop sandbox starts here, then every lifecycle instance of the workspace (default: the current folder), live and finished, with where it stands (a plan's tasks, a goal's turns and audit, a crew's subtasks, a loop's section, phase and open bugs, a job's command) and who drives the live ones",
    json: "{ sandbox: { starts, bwrap, problem }, workspace, database (null: Forge never ran there), instances: [{ machine, state, final, instance, session, updatedAt, driver, detail }], damaged: [{ machine, instance, problem }] }",
  },
  log: {
    usage: "log [workspace] [--machine m] [--instance id] [--session id] [--json]",
    text: "the transition log, oldest first, of one machine, instance or session, or all",
    json: "[{ at, machine, instance, session, from, event, to }]",
  },
  db: { usage: "db [workspace] [--json]", text: "the path of the workspace's database", json: "{ path }" },
  doctor: {
    usage: "doctor [workspace] [--json]",
    text: "what could keep Forge from working here: opencode's version against the supported one, the loop sandbox, the workspace's database and its forge.json workers, a line per check as it ends (exit 1 when one fails)",
    json: "[{ check, verdict: ok|warn|fail, detail }]",
  },
  viz: {
    usage: "viz [machine] [--format mermaid|svg|json]",
    text: "the machines' diagrams (Mermaid, every machine by default), one machine's SVG, or one machine's config as JSON for Stately's editor and createMachine",
    json: null,
  },
} as const

type Command = keyof typeof COMMANDS

const EXIT_CODES = "exit codes: 0 done, 1 the command failed, 2 a usage error"

function usage(): string {
  const lines = Object.values(COMMANDS).flatMap(({ usage, text }) => [`  ${usage}`, `      ${text}`])
  return `usage: forgecharts <command> [arguments] [--help]\n\ncommands:\n${lines.join("\n")}\n\n${EXIT_CODES}\n`
}

function commandUsage(command: Command): string {
  const { usage, text, json } = COMMANDS[command]
  return `usage: forgecharts ${usage}\n\n${text}.\n${json === null ? "" : `\n--json prints ${json}\n`}\n${EXIT_CODES}\n`
}

/** A usage error: said on stderr with what to give instead, exit 2. */
function misuse(message: string, command?: Command): number {
  process.stderr.write(`forgecharts${command === undefined ? "" : ` ${command}`}: ${message}\n\n${command === undefined ? usage() : commandUsage(command)}`)
  return 2
}

async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseOptions>
  try {
    parsed = parseOptions(argv)
  } catch (error) {
    return misuse((error instanceof Error ? error.message : String(error)).replace(/\.$/, ""), commandOf(argv[0]))
  }
  const { positionals, values } = parsed
  const [word, argument, extra] = positionals
  if (word === undefined) {
    process.stdout.write(usage())
    return values.help ? 0 : 2
  }
  const command = commandOf(word)
  if (command === undefined) return misuse(`unknown command "${word}"`)
  if (values.help) {
    process.stdout.write(commandUsage(command))
    return 0
  }
  if (extra !== undefined) return misuse(`one ${command === "viz" ? "machine" : "workspace"} at most (got "${argument}" and "${extra}")`, command)
  if (values.json && COMMANDS[command].json === null) return misuse("--json is not one of its options (--format json prints a machine's config)", command)
  if (values.format !== undefined && command !== "viz") return misuse("--format belongs to viz", command)
  const filters = values.machine !== undefined || values.instance !== undefined || values.session !== undefined
  if (filters && command !== "log") return misuse("--machine, --instance and --session belong to log", command)
  const print = (text: string, json: unknown) => process.stdout.write(values.json ? `${JSON.stringify(json, null, 2)}\n` : text)
  // Each command loads only what it uses (drizzle and zod take longer to load than status takes to read 1,000 records).
  if (command === "viz") {
    // The machines and their renderers load only for viz: every other command starts without them.
    const { vizText } = await import("./cli.viz")
    const outcome = await vizText(argument, values.format)
    if ("error" in outcome) return misuse(outcome.error, "viz")
    process.stdout.write(outcome.text)
    return 0
  }
  const workspace = path.resolve(argument ?? ".")
  if (command === "db") {
    print(`${databasePath(workspace)}\n`, { path: databasePath(workspace) })
    return 0
  }
  if (command === "doctor") {
    const { doctorChecks, doctorLine } = await import("./cli.doctor")
    const checks = await doctorChecks(workspace, (check) => {
      if (!values.json) process.stdout.write(`${doctorLine(check)}\n`)
    })
    if (values.json) print("", checks)
    return checks.some((check) => check.verdict === "fail") ? 1 : 0
  }
  if (command === "status") {
    const { statusReport, statusText } = await import("./cli.status")
    const report = await statusReport(workspace)
    print(statusText(report), report)
    return 0
  }
  if (!existsSync(databasePath(workspace))) {
    // Inspection never creates state: no database means Forge has not run in this workspace.
    print(`no Forge database in ${workspace} (expected ${databasePath(workspace)})\n`, [])
    return 0
  }
  const { openLifecycleStore } = await import("../adapters/storage/lifecycle.store")
  const store = await openLifecycleStore(workspace)
  try {
    const rows = await store.repository.listTransitions({
      ...(values.machine ? { machineId: values.machine } : {}),
      ...(values.instance ? { instanceId: values.instance } : {}),
      ...(values.session ? { sessionId: values.session } : {}),
    })
    const entries = rows.map((row) => ({
      at: new Date(row.at).toISOString(),
      machine: row.machineId,
      instance: row.instanceId,
      session: row.sessionId,
      from: row.from,
      event: row.event,
      to: row.to,
    }))
    print(entries.map((e) => `${e.at}\t${e.machine}\t${e.instance}\t${e.from} --${e.event}--> ${e.to}\n`).join(""), entries)
    return 0
  } finally {
    await store.close()
  }
}

function parseOptions(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      machine: { type: "string" },
      instance: { type: "string" },
      session: { type: "string" },
      format: { type: "string" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  })
}

function commandOf(word: string | undefined): Command | undefined {
  return word !== undefined && Object.hasOwn(COMMANDS, word) ? (word as Command) : undefined
}

/**
 * Exits once stdout has taken everything written to it. A pipe holds 64 KiB: past that, Node queues the rest and
 * writes it as the reader reads, and an exit at once dropped it (a large status --json reached `jq` cut short).
 */
function exitWhenWritten(code: number): void {
  // A reader that went away (`| head`) takes nothing more: nothing is left to wait for.
  process.stdout.once("error", () => process.exit(code))
  process.stdout.write("", () => process.exit(code))
}

main(process.argv.slice(2)).then(exitWhenWritten, (error: unknown) => {
  process.stderr.write(`forgecharts: ${error instanceof Error ? error.message : String(error)}\n`)
  exitWhenWritten(1)
})
