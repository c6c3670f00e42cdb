// Whether bubblewrap starts on this machine: tried for real with the namespaces a loop's sandbox uses, because a bwrap
// that is installed may still be refused (no user namespaces in a container, a setuid-less build, a hardened kernel).
import { spawn } from "node:child_process"
import { executableOnPath } from "../process/shell.resolver"

const PROBE_TIMEOUT_MS = 10_000
const BWRAP = "bwrap"

/** The bwrap on PATH (absolute), or undefined when there is none. */
export function findBwrap(pathVariable: string | undefined = process.env.PATH): string | undefined {
  return executableOnPath(BWRAP, pathVariable)
}

/** Why bubblewrap cannot confine a shell here, or null when it can: `bwrap` runs `true` inside every new namespace. */
export function probeBwrap(bwrap: string | undefined): Promise<string | null> {
  if (bwrap === undefined) return Promise.resolve("bwrap is not installed (no bwrap on PATH)")
  if (process.platform !== "linux") return Promise.resolve(`bubblewrap runs only on Linux, and this is ${process.platform}`)
  return new Promise((resolve) => {
    const argv = ["--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--", "true"]
    const child = spawn(bwrap, argv, { stdio: ["ignore", "ignore", "pipe"], timeout: PROBE_TIMEOUT_MS })
    let stderr = ""
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-2000)
    })
    child.once("error", (error) => resolve(`${bwrap} could not be run: ${error.message}`))
    child.once("close", (code, signal) => {
      if (code === 0) resolve(null)
      else resolve(`${bwrap} could not make its sandbox (${signal ?? `exit code ${code}`}): ${stderr.trim() || "no message"}`)
    })
  })
}
