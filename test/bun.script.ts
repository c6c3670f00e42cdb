import { spawnSync } from "node:child_process"
import path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")

/** Runs a repository script under the Bun that opencode embeds (`BUN_BE_BUN=1` turns the binary into it). */
export function runUnderOpencodeBun(script: string, timeoutMs = 25_000): { status: number | null; output: string } {
  const result = spawnSync(path.join(root, "node_modules/opencode-linux-x64/bin/opencode"), [script], {
    cwd: root,
    env: { ...process.env, BUN_BE_BUN: "1" },
    encoding: "utf8",
    timeout: timeoutMs,
  })
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` }
}
