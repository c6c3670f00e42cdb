import { existsSync } from "node:fs"
import path from "node:path"
import { parseArgs } from "node:util"
import { databasePath } from "../adapters/storage/database.path"

// `forgecharts`: inspect a workspace's Forge state from a terminal, without opencode running (and stop or clear its
// survive jobs). Exit codes: 0 done, 1 the command failed (an unreadable database, a check of doctor's), 2 a usage
// error (said on stderr with what to give instead).

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
    text: "what could keep Forge from working here: opencode's version against the supported one, whether the plugin module loads, whether the workspace's or the user's opencode config lists forgecharts (and its options are Forge's), the loop sandbox, the workspace's database and its forge.json workers, a line per check as it ends (exit 1 when one fails)",
    json: "[{ check, verdict: ok|warn|fail, detail }]",
  },
  inspect: {
    usage: "inspect [workspace] [--port N] [--json]",
    text: "the live inspector: a page on 127.0.0.1 (a free port unless --port) showing every lifecycle of the workspace with its diagram, current state, document and transition log, following its database while opencode runs, until Ctrl-C; it answers only local addresses and loads nothing from the internet",
    json: "{ url, inspect, workspace, database } once it listens (one line; inspect is the ws:// URL for the plugin's inspect option), then nothing until it stops",
  },
  jobs: {
    usage: "jobs [workspace] [--kill ID | --clear] [--json]",
    text: "the workspace's survive jobs (run_in_background jobs that outlive opencode): state, command, whether its process and its opencode process run, exit code, log file and size. --kill ID kills that job's whole process tree (recorded as forge_jobs kill records it when no opencode process drives the job); --clear removes the logs and records finished ones left (never a running job's, never a file Forge did not write) and says what it removed and kept",
    json: "{ workspace, database (null: Forge never ran there), jobs: [{ id, state, final, command, cwd, session, pid, alive, host: { pid, alive }, exitCode, signal, log: { path, bytes (null: gone) }, startedAt, endedAt }], damaged: [{ id, problem }] }; with --kill: { id, killed: [pid], survivors: [pid], recorded (the state written, or null), note }; with --clear: { removed: [{ id, files, record }], kept: [{ id, reason }] }",
  },
  viz: {
    usage: "viz [machine] [--format mermaid|svg|json]",
    text: "the machines' diagrams (Mermaid, every machine by default), one machine's SVG, or one machine's config as JSON for Stately's editor and createMachine",
    json: null,
  },
  paths: {
    usage: "paths <machine> [--json]",
    text: "the model-based paths of a machine, the replays its model test runs, for another harness to replay: a line per path with its name, where the machine starts and each event's type with the state it leads to; then the transition coverage of them all",
    json: "{ machine, paths: [{ name, config, input, initial: { state, children? }, steps: [{ event, accepted, state, children? }], final: { state, children?, status } }], coverage: [{ machine, taken, total, missing }] } (state: the machine's state value; children: those of the machines it invokes, by id; accepted: whether the machine takes the event, a service refusing it where not)",
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
  if (extra !== undefined)
    return misuse(`one ${command === "viz" || command === "paths" ? "machine" : "workspace"} at most (got "${argument}" and "${extra}")`, command)
  if (values.json && COMMANDS[command].json === null) return misuse("--json is not one of its options (--format json prints a machine's config)", command)
  if (values.format !== undefined && command !== "viz") return misuse("--format belongs to viz", command)
  if (values.port !== undefined && command !== "inspect") return misuse("--port belongs to inspect", command)
  const filters = values.machine !== undefined || values.instance !== undefined || values.session !== undefined
  if (filters && command !== "log") return misuse("--machine, --instance and --session belong to log", command)
  if ((values.kill !== undefined || values.clear) && command !== "jobs") return misuse("--kill and --clear belong to jobs", command)
  if (values.kill !== undefined && values.clear)
    return misuse("--kill and --clear together: give one (--kill ID kills a job, --clear removes what finished ones left)", command)
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
  if (command === "paths") {
    // The model worlds and xstate/graph load only for paths.
    const { pathsOutput } = await import("./cli.paths")
    const outcome = pathsOutput(argument, values.json === true)
    if ("error" in outcome) return misuse(outcome.error, "paths")
    // Megabytes to a pipe: the process exits once they are written (exitWhenWritten), or once a reader stops early (`| head`).
    process.stdout.write(outcome.text)
    return 0
  }
  const workspace = path.resolve(argument ?? ".")
  if (command === "db") {
    print(`${databasePath(workspace)}\n`, { path: databasePath(workspace) })
    return 0
  }
  if (command === "doctor") {
    // The checks and `checking <name>…` on a terminal's stderr (cleared for each result line) load only for doctor.
    const { doctorChecks, doctorLine } = await import("./cli.doctor")
    const { progress } = await import("./cli.progress")
    const shown = progress(process.stderr)
    const checks = await doctorChecks(workspace, {
      starting: (name) => shown.step(`checking ${name}…`),
      seen: (check) => {
        shown.done()
        if (!values.json) process.stdout.write(`${doctorLine(check)}\n`)
      },
    })
    if (values.json) print("", checks)
    return checks.some((check) => check.verdict === "fail") ? 1 : 0
  }
  if (command === "inspect") {
    // The page's server and its renderers load only for inspect.
    const { startInspector } = await import("./cli.inspect")
    const run = await startInspector(workspace, values.port)
    if ("error" in run) return misuse(run.error, "inspect")
    const { url, inspectUrl, database } = run
    process.stdout.write(
      values.json
        ? `${JSON.stringify({ url, inspect: inspectUrl, workspace, database })}\n`
        : `Forge inspector of ${workspace}: ${url} (Ctrl-C stops it)\nlive actors too: set the plugin option "inspect": "${inspectUrl}" (a fixed --port keeps it the same)\n`,
    )
    await run.stopped
    return 0
  }
  if (command === "jobs") {
    // The job machine and the process table load only for jobs.
    const { jobsCommand } = await import("./cli.jobs")
    const answer = await jobsCommand(workspace, { kill: values.kill, clear: values.clear === true })
    if ("error" in answer) process.stderr.write(`forgecharts jobs: ${answer.error}\n`)
    else print(answer.text, answer.json)
    return answer.code
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
      port: { type: "string" },
      kill: { type: "string" },
      clear: { type: "boolean" },
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
