// Starting opencode's TUI for a TUI-mode scenario: a launcher script in the temp root (so a kept root shows exactly
// what ran), a private tmux server running it, and the wait until the home screen's prompt is drawn and the TUI's
// own HTTP server (--port) answers.
import fs from "node:fs"
import path from "node:path"
import { createOpencodeClient, type OpencodeClient } from "@opencode-ai/sdk/client"
import type { DriverContext } from "./opencode.driver"
import { adoptProcess, freePort, sleep, type Adopted } from "./processes"
import { formatScreen, saveScreen } from "./tui-mode.screen"
import { startTmux, type Tmux } from "./tui-mode.tmux"

const START_TIMEOUT_MS = 60_000
/** The home screen's prompt placeholder (opencode 1.18.33: `Ask anything… "<an example>"`): the TUI is drawn. */
const HOME_PROMPT = "Ask anything"

export interface RunningTui {
  tmux: Tmux
  /** The tmux server and opencode (the pane's process), stopped in that order by `stopTui`. */
  server: Adopted
  opencode: Adopted
  client: OpencodeClient
  url: string
  socket: string
}

let sockets = 0

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`
}

/**
 * Writes `<root>/tui-launch.sh`: `env -i` with exactly the scenario's environment plus TERM=xterm-256color, so
 * neither the tmux server's environment nor what tmux adds to a pane (TMUX, TMUX_PANE, its own TERM) reaches
 * opencode.
 */
function writeLauncher(ctx: DriverContext, port: number): string {
  const { sandbox, scenario } = ctx
  const env = { ...sandbox.env, TERM: "xterm-256color" }
  const assignments = Object.entries(env)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([key, value]) => shellQuote(`${key}=${value}`))
  const command = [ctx.bin, "--hostname", "127.0.0.1", "--port", String(port), "--log-level", scenario.logLevel].map(shellQuote)
  const file = path.join(sandbox.root, "tui-launch.sh")
  const script = [
    "#!/bin/sh",
    "# opencode's TUI as the e2e harness started it in tmux.",
    `cd ${shellQuote(sandbox.project)} || exit 1`,
    `exec env -i ${[...assignments, ...command].join(" \\\n  ")}`,
    "",
  ]
  fs.writeFileSync(file, script.join("\n"), { mode: 0o700 })
  return file
}

/** True once the TUI's HTTP server answers an API call. */
async function answers(client: OpencodeClient): Promise<boolean> {
  try {
    return (await client.session.list()).data !== undefined
  } catch {
    return false
  }
}

/**
 * Starts the TUI and waits until it is usable. Resolves undefined when it did not come up (recorded as a failed
 * check naming the last screen); everything started is stopped again then.
 */
export async function startTui(ctx: DriverContext): Promise<RunningTui | undefined> {
  const { scenario, sandbox } = ctx
  const width = scenario.tui?.width ?? 200
  const height = scenario.tui?.height ?? 50
  const port = await freePort()
  const launcher = writeLauncher(ctx, port)
  sockets += 1
  const socket = `forge-e2e-${process.pid}-${sockets}`
  const tmuxEnv: NodeJS.ProcessEnv = {
    PATH: sandbox.env.PATH ?? "/usr/bin:/bin",
    HOME: sandbox.home,
    // Inside the root, so a leaked server is found by its TMPDIR and its socket dir goes with the root.
    TMPDIR: sandbox.env.TMPDIR,
    TMUX_TMPDIR: sandbox.root,
    LANG: "C.UTF-8",
  }
  let tmux: Tmux
  try {
    tmux = await startTmux({ socket, env: tmuxEnv, width, height, cwd: sandbox.project, command: ["/bin/sh", launcher] })
  } catch (err) {
    ctx.check("TUI started", false, (err as Error).message)
    return undefined
  }
  const server = adoptProcess(tmux.serverPid)
  const url = `http://127.0.0.1:${port}`
  const client = createOpencodeClient({ baseUrl: url, directory: sandbox.project })
  let opencode: Adopted | undefined
  let screen = ""
  let why = `no prompt on the home screen within ${START_TIMEOUT_MS} ms`
  try {
    opencode = adoptProcess((await tmux.pane()).pid)
    for (const deadline = Date.now() + START_TIMEOUT_MS; Date.now() < deadline; await sleep(250)) {
      const pane = await tmux.pane()
      screen = await tmux.capture()
      if (pane.dead) {
        why = `opencode exited with ${pane.status ?? "?"} before the home screen was drawn`
        break
      }
      if (!screen.includes(HOME_PROMPT)) continue
      if (await answers(client)) {
        ctx.say(`  tui ${url} (${width}×${height}, tmux -L ${socket})`)
        return { tmux, server, opencode, client, url, socket }
      }
      why = `the home screen is drawn, but nothing answers on ${url}`
    }
  } catch (err) {
    why = (err as Error).message
  }
  saveScreen(sandbox.root, "start", screen)
  ctx.say("  screen at start:")
  ctx.say(formatScreen(screen))
  ctx.check("TUI started", false, why)
  await stopTui({ tmux, server, opencode })
  return undefined
}

/** Ends the tmux server (opencode gets SIGHUP), then makes sure opencode's whole tree is gone. */
export async function stopTui(tui: { tmux: Tmux; server: Adopted; opencode: Adopted | undefined }): Promise<void> {
  if (tui.opencode) await tui.opencode.stop(3_000, () => tui.tmux.kill())
  else await tui.tmux.kill()
  await tui.server.stop(1_000)
}
