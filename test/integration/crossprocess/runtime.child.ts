// One Forge runtime in its own process, as a second opencode on the workspace would hold it: opened with the system
// clock on the workspace named in FORGE_CROSSPROCESS_WORKSPACE, driven by JSON-line requests on stdin (protocol.ts).
//
//   node --import tsx test/integration/crossprocess/runtime.child.ts   (the tests run it bundled: two.runtimes.ts)
//
// Requests run concurrently (a held dialog must not block the next request), each answered by its id. stdout
// carries protocol lines only; the runtime's log goes to stderr, which the harness shows when something fails.
import { readFile } from "node:fs/promises"
import path from "node:path"
import { createInterface } from "node:readline"
import type { PluginInput } from "@opencode-ai/plugin"
import type { Confirm, Logger } from "../../../services/lifecycle/lifecycle.ports"
import { type HostJobs, createHostJobs } from "../../../src/job/job.lazy"
import { createDriverClaims } from "../../../src/drivers"
import type { DriverClaims } from "../../../services/lifecycle/driver.claim"
import { toShellRequest } from "../../../services/job/job.request"
import type { ComposedRuntime } from "../../../src/runtime"
import { createForgeRuntime } from "../../../src/runtime"
import { systemClock } from "../../../src/system"
import { type Answer, type ChildEvent, type DialogAnswer, type Ops, type Request, SESSIONS_ENV, WORKSPACE_ENV } from "./protocol"

const workspace = process.env[WORKSPACE_ENV]
if (workspace === undefined || workspace === "") throw new Error(`runtime.child.ts: set ${WORKSPACE_ENV} to the workspace folder`)

function send(line: Answer | ChildEvent): void {
  process.stdout.write(`${JSON.stringify(line)}\n`)
}

const log: Logger = {
  info: (message) => process.stderr.write(`info: ${message}\n`),
  warn: (message) => process.stderr.write(`warn: ${message}\n`),
  error: (message) => process.stderr.write(`error: ${message}\n`),
}

/** Dialogs held open, by hold name, until a `release` request answers them. */
const held = new Map<string, (allow: boolean) => void>()

function confirmFor(dialog: DialogAnswer): Confirm {
  if (dialog === "allow") return async () => true
  if (dialog === "reject") return async () => false
  return (request) =>
    new Promise<boolean>((resolve) => {
      held.set(dialog.hold, resolve)
      // Announced only once the resolver is in place, so a release sent on this event always finds it.
      send({ event: "dialog", hold: dialog.hold, request })
    })
}

/** The wakes delivered into sessions: opencode's promptAsync, recorded. */
const wakes: { session: string; text: string }[] = []

/** Just enough of opencode's client for the jobs: session status (idle or busy, by SESSIONS_ENV) and promptAsync. */
function sessionsClient(): PluginInput["client"] {
  const busy = process.env[SESSIONS_ENV] === "busy"
  const session = {
    status: async () => ({ data: busy ? new Proxy({}, { get: () => ({ type: "busy" }) }) : {} }),
    promptAsync: async ({ path: where, body }: { path: { id: string }; body: { parts: { text: string }[] } }) => {
      wakes.push({ session: where.id, text: body.parts.map((part) => part.text).join("") })
      return {}
    },
  }
  return { session } as unknown as PluginInput["client"]
}

/** This process's driver claims, in the workspace database, held as this process (pid and start time). */
let driverClaims: DriverClaims | undefined
function claimsOf(rt: ComposedRuntime): DriverClaims {
  driverClaims ??= createDriverClaims({ connection: async () => rt.connection, clock: systemClock, log })
  return driverClaims
}

/** The jobs of this process, composed on first use on the runtime's database and lifecycle host. */
let hostJobs: HostJobs | undefined
function jobsOf(rt: ComposedRuntime): () => HostJobs {
  return () => {
    hostJobs ??= createHostJobs({
      client: sessionsClient(),
      log,
      clock: systemClock,
      repository: async () => rt.repository,
      keyValue: async () => rt.keyValue,
      host: rt.host,
      claims: claimsOf(rt),
    })
    return hostJobs
  }
}

/** As the plugin's dispose does: the jobs first (non-survive ones are killed), then the runtime. */
async function closeAll(rt: ComposedRuntime): Promise<void> {
  if (hostJobs !== undefined) {
    await hostJobs.supervisor.dispose()
    hostJobs.uninstall()
  }
  await rt.close()
}

type Handlers = { [K in keyof Ops]: (args: Ops[K]["args"]) => Promise<Ops[K]["value"]> }

function handlers(rt: ComposedRuntime): Handlers {
  const jobs = jobsOf(rt)
  return {
    jobStart: async ({ session, command, survive }) => {
      const request = toShellRequest({ command, run_in_background: true, survive }, { cwd: rt.workspace, survive: "never" }, (cwd) =>
        path.resolve(rt.workspace, cwd),
      )
      const result = await jobs().supervisor.run(session, request)
      const id = /job: (\S+)/.exec(result)?.[1]
      if (id === undefined) throw new Error(`forge_shell answered without a job id: ${result}`)
      return id
    },
    jobRestore: () => jobs().supervisor.restore(rt.repository),
    jobList: async ({ session }) => jobs().supervisor.list(session),
    jobHandoff: async ({ jobId, root }) => jobs().supervisor.handoff(jobId, root),
    jobKill: ({ jobId }) => jobs().supervisor.kill(jobId),
    wakes: async () => [...wakes],
    write: ({ session, body }) => rt.plans.write(session, body),
    gate: ({ session, tool }) => rt.plans.gate(session, tool),
    approve: ({ session, dialog }) => rt.plans.approve(session, confirmFor(dialog)),
    tick: ({ session, task }) => rt.plans.tick(session, task),
    close: ({ session, checks, dialog }) => rt.plans.close(session, checks, confirmFor(dialog)),
    discard: (args) =>
      rt.plans.discard(
        args.session,
        args.by === "user" ? { by: "user" } : { by: "model", confirm: confirmFor(args.dialog) },
        `discarded by process ${process.pid}`,
      ),
    release: async ({ hold, allow }) => {
      const resolve = held.get(hold)
      if (resolve === undefined) throw new Error(`no dialog is held as "${hold}"`)
      held.delete(hold)
      resolve(allow)
      return null
    },
    liveFor: async ({ session }) => {
      const planPath = rt.plans.liveFor(session)
      return planPath === undefined ? null : { planPath, status: rt.plans.statusOf(planPath) }
    },
    list: async () => (await rt.queries.overview()).plans,
    read: ({ planPath }) => readFile(path.join(rt.workspace, planPath), "utf8"),
    exit: async () => {
      await closeAll(rt)
      return null
    },
  }
}

async function answer(table: Handlers, request: Request): Promise<void> {
  try {
    // The table is keyed by op: the request's args are the op's own (checked by the harness that built them).
    const handler = table[request.op] as (args: unknown) => Promise<unknown>
    if (handler === undefined) throw new Error(`unknown op "${String(request.op)}"`)
    send({ id: request.id, ok: true, value: (await handler(request.args)) ?? null })
  } catch (error) {
    const named = error instanceof Error ? error : new Error(String(error))
    send({ id: request.id, ok: false, error: { name: named.name, message: named.message } })
  }
  if (request.op === "exit") process.exit(0)
}

async function main(dir: string): Promise<void> {
  const rt = await createForgeRuntime({ workspace: dir, log, clock: systemClock })
  const table = handlers(rt)
  const lines = createInterface({ input: process.stdin })
  lines.on("line", (line) => {
    if (line.trim() === "") return
    void answer(table, JSON.parse(line) as Request)
  })
  // The test ended without saying goodbye: nothing is left running after it.
  lines.on("close", () => void closeAll(rt).finally(() => process.exit(0)))
  send({ event: "ready", pid: process.pid, storageTrouble: rt.storageTrouble === undefined ? null : rt.storageTrouble.problem })
}

main(workspace).catch((error: unknown) => {
  send({ event: "fatal", message: error instanceof Error ? (error.stack ?? error.message) : String(error) })
  process.exit(1)
})
