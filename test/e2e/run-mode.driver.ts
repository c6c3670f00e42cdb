// Run mode: one `opencode run --format json` process per turn. The first turn creates the session; later turns
// continue it with --session, so a multi-turn scenario is one conversation in both modes.
import { stripVTControlCharacters } from "node:util"
import { z } from "zod"
import { preview, turnLabel, type Driver, type DriverContext, type ToolResult } from "./opencode.driver"
import { spawnTracked, withTimeout, type Spawned } from "./processes"
import type { Turn } from "./scenario.schema"

const runEvent = z.looseObject({
  type: z.string(),
  sessionID: z.string().optional(),
  part: z
    .looseObject({
      tool: z.string().optional(),
      text: z.string().optional(),
      state: z
        .looseObject({
          status: z.string().optional(),
          input: z.record(z.string(), z.unknown()).optional(),
          output: z.unknown().optional(),
          error: z.unknown().optional(),
          title: z.string().optional(),
          metadata: z.record(z.string(), z.unknown()).optional(),
        })
        .optional(),
    })
    .optional(),
  error: z.unknown().optional(),
})

/** Splits command arguments on whitespace: opencode re-quotes a single argv entry that contains spaces. */
export function commandArgv(args: string): string[] {
  return args.split(/\s+/).filter((a) => a.length > 0)
}

function errorText(value: unknown): string {
  if (typeof value === "string") return value
  if (value && typeof value === "object") {
    const v = value as { data?: { message?: unknown }; message?: unknown; name?: unknown }
    if (typeof v.data?.message === "string") return v.data.message
    if (typeof v.message === "string") return v.message
  }
  return JSON.stringify(value) ?? String(value)
}

export function createRunModeDriver(ctx: DriverContext): Driver {
  const { scenario, sandbox } = ctx
  let sessionId: string | undefined
  const results: ToolResult[] = []
  let stderrAll = ""
  let current: Spawned | undefined

  const handleLine = (line: string, n: number) => {
    if (!line.trim()) return
    let raw: unknown
    try {
      raw = JSON.parse(line)
    } catch {
      ctx.say(`  stdout: ${preview(line)}`)
      return
    }
    const parsed = runEvent.safeParse(raw)
    if (!parsed.success) return
    const ev = parsed.data
    if (ev.sessionID && !sessionId) sessionId = ev.sessionID
    if (ev.type === "tool_use" && ev.part?.tool) {
      const state = ev.part.state
      const status = state?.status ?? "unknown"
      const output = status === "error" ? errorText(state?.error) : typeof state?.output === "string" ? state.output : JSON.stringify(state?.output ?? "")
      results.push({
        turn: n,
        server: 1,
        tool: ev.part.tool,
        status,
        input: state?.input ?? {},
        output,
        title: state?.title ?? "",
        metadata: state?.metadata ?? {},
      })
      ctx.say(`  tool ${ev.part.tool} ${status}: ${preview(output)}`)
    } else if (ev.type === "text" && ev.part?.text) {
      ctx.say(`  assistant: ${preview(ev.part.text)}`)
    } else if (ev.type === "error") {
      ctx.say(`  error: ${preview(errorText(ev.error))}`)
    }
  }

  const runTurn = async (turn: Turn, n: number): Promise<boolean> => {
    const args = ["run", "--format", "json", "--log-level", scenario.logLevel]
    if (sessionId) args.push("--session", sessionId)
    else args.push("--title", scenario.name ?? "e2e")
    if (turn.agent) args.push("--agent", turn.agent)
    if (turn.auto ?? scenario.auto) args.push("--auto")
    // "--" ends the options, so a prompt or an argument starting with "-" stays the message.
    if (turn.command !== undefined) args.push("--command", turn.command, "--", ...commandArgv(sandbox.expand(turn.arguments ?? "")))
    else if (turn.prompt !== undefined) args.push("--", sandbox.expand(turn.prompt))
    ctx.say(`turn ${n} ${turnLabel(turn)}`)

    let pending = ""
    let errPending = ""
    const proc = spawnTracked(ctx.bin, args, {
      cwd: sandbox.project,
      env: sandbox.env,
      onStdout: (chunk) => {
        pending += chunk
        const lines = pending.split("\n")
        pending = lines.pop() ?? ""
        for (const line of lines) handleLine(line, n)
      },
      onStderr: (chunk) => {
        // opencode announces auto-rejected / auto-approved asks on stderr.
        errPending += chunk
        const lines = errPending.split("\n")
        errPending = lines.pop() ?? ""
        for (const line of lines) if (/permission requested/i.test(line)) ctx.say(`  ${preview(stripVTControlCharacters(line))}`)
      },
    })
    current = proc
    const timeoutMs = turn.timeoutMs ?? scenario.timeoutMs
    let code: number | null
    try {
      code = await withTimeout(proc.exited, timeoutMs, "timeout")
    } catch {
      await proc.stop()
      stderrAll += proc.stderr()
      ctx.check(`turn ${n}: opencode run finished`, false, `no exit within ${timeoutMs} ms (killed)`)
      return false
    } finally {
      current = undefined
    }
    if (pending) handleLine(pending, n)
    stderrAll += `--- turn ${n} stderr ---\n${proc.stderr()}`
    const expected = turn.exitCode ?? scenario.expect.exitCode ?? 0
    ctx.say(`  exit ${code}`)
    ctx.check(`turn ${n}: exit code ${expected}`, code === expected, `got ${code}`)
    if (!sessionId) {
      ctx.check(`turn ${n}: session started`, false, "opencode run printed no event with a sessionID")
      return false
    }
    return true
  }

  return {
    start: async () => true,
    runTurn,
    restart: async () => true,
    toolResults: async () => [...results],
    stop: async () => {
      await current?.stop()
    },
    stderr: () => stderrAll,
  }
}
