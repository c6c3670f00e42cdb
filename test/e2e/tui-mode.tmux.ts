// A private tmux server for one TUI-mode scenario: its own socket name (-L) in a socket dir inside the temp root
// (TMUX_TMPDIR), no config file (-f /dev/null), a clean environment, no status line, and one window of the
// scenario's size running one command. A user's own tmux is never touched, and nothing of it (or of the caller's
// environment) reaches the pane.
import { execFile } from "node:child_process"
import { sleep } from "./processes"

const SESSION = "e2e"

export interface TmuxOptions {
  /** Socket name (-L): unique per scenario run. */
  socket: string
  /** The tmux server's whole environment (PATH must find tmux; TMUX_TMPDIR places the socket dir). */
  env: NodeJS.ProcessEnv
  width: number
  height: number
  cwd: string
  /** The pane's command, run without a shell. */
  command: readonly string[]
}

export interface PaneState {
  /** The pane's process (the command itself). */
  pid: number
  /** The command has exited (the pane stays, remain-on-exit). */
  dead: boolean
  /** Its exit status, once dead. */
  status?: number
}

export interface Tmux {
  /** The tmux server's own pid. */
  readonly serverPid: number
  /** The visible screen as text (capture-pane -p: no colours, trailing blanks trimmed). */
  capture(): Promise<string>
  /** Types `text` as it is (send-keys -l; a newline is typed as C-j). */
  type(text: string): Promise<void>
  /** Presses one key by its tmux name ("Enter", "C-x", …). */
  press(key: string): Promise<void>
  pane(): Promise<PaneState>
  /** Ends the server and with it the pane (its process gets SIGHUP). Safe to call twice. */
  kill(): Promise<void>
}

/** Runs one tmux client command against the private server; rejects with tmux's message. */
function runTmux(options: TmuxOptions, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    // -u: the output is UTF-8 whatever the (clean) locale says, so box drawing survives capture-pane.
    execFile("tmux", ["-u", "-L", options.socket, "-f", "/dev/null", ...args], { env: options.env, encoding: "utf8" }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout)
      const why = (err as NodeJS.ErrnoException).code === "ENOENT" ? "tmux not found on PATH (TUI mode needs tmux)" : stderr.trim() || err.message
      reject(new Error(`tmux ${args[0]}: ${why}`))
    })
  })
}

/** Starts the server with one detached session running `command` in a window of `width` × `height`. */
export async function startTmux(options: TmuxOptions): Promise<Tmux> {
  const size = ["-x", String(options.width), "-y", String(options.height)]
  // Options are set before the pane exists: no status line (it would take a row of the window), and a pane whose
  // command exited stays with its last screen, so a crash can be read.
  await runTmux(options, [
    "start-server",
    ";",
    ...["set-option", "-g", "status", "off", ";"],
    ...["set-option", "-g", "remain-on-exit", "on", ";"],
    ...["new-session", "-d", "-s", SESSION, ...size, "-c", options.cwd, "--", ...options.command],
  ])
  const serverPid = Number((await runTmux(options, ["display-message", "-p", "#{pid}"])).trim())
  let killed = false
  return {
    serverPid,
    capture: async () => (await runTmux(options, ["capture-pane", "-p", "-t", SESSION])).replace(/\n+$/, ""),
    type: async (text) => void (await runTmux(options, ["send-keys", "-t", SESSION, "-l", "--", text])),
    press: async (key) => void (await runTmux(options, ["send-keys", "-t", SESSION, key])),
    pane: async () => {
      // tmux marks the pane dead when its terminal closes and learns the exit status a moment later, when it reaps
      // the process: a dead pane is asked again until the status is there (and the "Pane is dead" line drawn).
      for (let attempt = 0; ; attempt += 1) {
        const [pid, dead, status] = (await runTmux(options, ["display-message", "-p", "-t", SESSION, "#{pane_pid} #{pane_dead} #{pane_dead_status}"]))
          .trim()
          .split(" ")
        if (dead !== "1") return { pid: Number(pid), dead: false }
        if (status || attempt >= 20) return { pid: Number(pid), dead: true, ...(status ? { status: Number(status) } : {}) }
        await sleep(50)
      }
    },
    kill: async () => {
      if (killed) return
      killed = true
      await runTmux(options, ["kill-server"]).catch(() => undefined)
    },
  }
}
