import { spawnSync } from "node:child_process"
import { rmSync } from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { closeSharedHosts, runScenario } from "../test/e2e/index"

// `npm run demo`: the product in about a minute, with no network. The scripted model (test/e2e/fake-llm.ts) drives
// the real opencode through test/e2e/scenarios/demo/tour.serve.json: a plan approved and closed, a goal completed
// fail-closed after a failing check, a crew wave, a job. Then `forgecharts status` shows what the workspace holds.

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const SCENARIO = path.join(ROOT, "test", "e2e", "scenarios", "demo", "tour.serve.json")

async function main(): Promise<number> {
  const result = await runScenario(SCENARIO, { keep: true, log: (line) => console.log(line) })
  try {
    if (!result.passed) {
      console.log(`===== opencode logs and stderr =====\n${result.diagnostics}\n===== end of logs =====`)
      return 1
    }
    const project = path.join(result.root ?? "", "project")
    console.log(`\n$ forgecharts status ${project}`)
    const status = spawnSync(path.join(ROOT, "node_modules", ".bin", "tsx"), [path.join(ROOT, "src", "cli.ts"), "status", project], { stdio: "inherit" })
    return status.status ?? 1
  } finally {
    for (const root of result.roots ?? []) rmSync(root, { recursive: true, force: true })
  }
}

main()
  .then(async (code) => {
    await closeSharedHosts()
    process.exit(code)
  })
  .catch(async (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error))
    await closeSharedHosts()
    process.exit(1)
  })
