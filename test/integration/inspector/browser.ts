import { spawn } from "node:child_process"
import { existsSync, mkdirSync } from "node:fs"
import { type AddressInfo, createServer } from "node:net"
import path from "node:path"
import { type Browser, chromium } from "playwright-core"

// The inspector's pages are tested in a real browser: Debian's chromium driven by playwright-core. `.ci/run` installs
// chromium; on a machine without it the tests fail saying how to get it.

const CHROMIUM = process.env.FORGE_CHROMIUM ?? "/usr/bin/chromium"
const ROOT = path.resolve(import.meta.dirname, "../../..")

/** Where the inspector tests keep their screenshots (git-ignored). */
export const ARTIFACTS = path.join(ROOT, "test-artifacts", "inspector")

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`no chromium at ${CHROMIUM}: the inspector's browser tests need it (apt-get install chromium, or set FORGE_CHROMIUM to a Chromium binary)`)
  }
  mkdirSync(ARTIFACTS, { recursive: true })
  // Flags for a closed network: no background traffic, no first-run work.
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  })
}

/** A port free on 127.0.0.1 now (for a server whose address must be known before it starts). */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** `forgecharts inspect <workspace> --json [--port N]` from source; resolves with its URL once it listens, and how to stop it. */
export async function startInspectCli(workspace: string, port = 0): Promise<{ url: string; stop(): Promise<number | null> }> {
  const args = [path.join(ROOT, "src/cli.ts"), "inspect", workspace, "--json", "--port", String(port)]
  const child = spawn(path.join(ROOT, "node_modules/.bin/tsx"), args, { stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  let errors = ""
  child.stderr.on("data", (chunk: Buffer) => {
    errors += chunk.toString()
  })
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString()
      const line = output.split("\n")[0] ?? ""
      if (output.includes("\n")) resolve((JSON.parse(line) as { url: string }).url)
    })
    child.once("exit", (code) => reject(new Error(`forgecharts inspect exited (${code}) before listening: ${errors}`)))
  })
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode)
        child.once("exit", (code) => resolve(code))
        child.kill("SIGINT")
      }),
  }
}
