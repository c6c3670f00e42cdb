// The fence: fenced jobs die with the host however the host dies, SIGKILL included, when no JavaScript runs.
// One watcher per host process, a tiny POSIX sh script in its own process group, reads a pipe whose only write
// end the host holds and never writes to. When the host dies the kernel closes that end, the watcher's read hits
// EOF and it SIGKILLs every process started with FORGE_JOB_HOST=<this host's token>. A "stop" line instead makes
// it leave quietly (the host is shutting the fence down on purpose). Where jobs run under their subreaper shim, each
// shim kills its own subtree when the host dies; this watcher is the fallback (no shim, or a shim killed by SIGKILL).
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { JOB_HOST_VAR, withoutMarkers } from "./job.markers"
import { isAlive } from "./proc.table"

export interface Fence {
  /** This host's token; fenced jobs carry `FORGE_JOB_HOST=<token>`. */
  token: string
  /** The watcher's pid. */
  pid: number
  /** Settles once the watcher runs; rejects when it could not be started. */
  ready: Promise<void>
  /** Retires the watcher without killing anything; the next `startFence()` starts a new one, same token. */
  stop(): void
}

// $1 is the token (in argv, never in the watcher's own environment, so the watcher never matches itself).
// The sweep repeats until a pass kills nothing: a job may fork between the scan and the kill.
const WATCHER_SCRIPT = `t="${JOB_HOST_VAR}=$1"
trap '' HUP INT
while IFS= read -r l; do [ "$l" = stop ] && exit 0; done
m() {
  if printf 'x\\000' | grep -qzx x 2>/dev/null; then grep -lzxF -e "$t" /proc/[0-9]*/environ 2>/dev/null
  else for e in /proc/[0-9]*/environ; do tr '\\000' '\\n' 2>/dev/null <"$e" | grep -qxF -e "$t" && echo "$e"; done; fi
}
n=0
while [ $n -lt 20 ]; do
  n=$((n+1)); h=
  for e in $(m); do p=\${e#/proc/}; p=\${p%/environ}; [ "$p" = "$$" ] && continue; kill -9 "$p" 2>/dev/null && h=1; done
  [ -z "$h" ] && exit 0
done`

const token = randomBytes(16).toString("hex")
let current: Fence | undefined

/** The running fence of this host process, started on first use (and again if its watcher died). */
export function startFence(): Fence {
  // The exit event of a watcher killed from outside may not have been delivered yet: ask /proc too.
  if (current && current.pid > 0 && isAlive(current.pid)) return current
  const child = spawn("/bin/sh", ["-c", WATCHER_SCRIPT, "forge-fence", token], {
    stdio: ["pipe", "ignore", "ignore"],
    detached: true,
    env: withoutMarkers(process.env),
  })
  const fence = createFence(child)
  current = fence
  return fence
}

function createFence(child: ChildProcess): Fence {
  const stdin = child.stdin
  if (!stdin) throw new Error("the fence watcher was started without a stdin pipe")
  // The host never writes until stop(); a broken pipe only means the watcher is gone, which `exit` reports.
  stdin.on("error", () => undefined)
  // Neither the watcher nor its pipe may keep the host alive.
  child.unref()
  const unrefStdin = (stdin as { unref?: () => void }).unref
  if (typeof unrefStdin === "function") unrefStdin.call(stdin)

  let settled = false
  const ready = new Promise<void>((resolve, reject) => {
    child.once("spawn", () => {
      settled = true
      resolve()
    })
    child.once("error", (error) => {
      if (current === fence) current = undefined
      if (!settled) reject(new Error(`cannot start the job fence watcher (/bin/sh): ${error.message}`))
    })
  })
  // A caller that never awaits `ready` must not turn a start failure into an unhandled rejection.
  ready.catch(() => undefined)
  child.once("exit", () => {
    if (current === fence) current = undefined
  })

  const fence: Fence = {
    token,
    pid: child.pid ?? -1,
    ready,
    stop() {
      if (current === fence) current = undefined
      if (!stdin.destroyed) stdin.end("stop\n")
    },
  }
  return fence
}
