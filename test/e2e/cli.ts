// `npm run e2e -- [--keep] [--quiet] <scenario.json>...` — runs scenario files against the real opencode.
// Exit 0: every check held; 1: a check failed; 2: bad usage or an invalid scenario file.
import { ScenarioFileError } from "./scenario.loader"
import { runScenario } from "./scenario.runner"
import { closeSharedHosts } from "./shared.host"

const USAGE = `usage: npm run e2e -- [--keep] [--quiet] <scenario.json>...
  --keep    keep the temp root (HOME, project, opencode logs) and print its path
  --quiet   print only the summary, the failures and (on failure) the opencode logs`

async function main(argv: string[]): Promise<number> {
  const files: string[] = []
  let keep = false
  let quiet = false
  for (const arg of argv) {
    if (arg === "--keep") keep = true
    else if (arg === "--quiet") quiet = true
    else if (arg === "--help" || arg === "-h") {
      console.log(USAGE)
      return 0
    } else if (arg.startsWith("-")) {
      console.error(`unknown option ${arg}\n${USAGE}`)
      return 2
    } else files.push(arg)
  }
  if (files.length === 0) {
    console.error(USAGE)
    return 2
  }
  let worst = 0
  let passed = 0
  let failed = 0
  let ran = 0
  for (const file of files) {
    try {
      const result = await runScenario(file, { keep, log: quiet ? undefined : (line) => console.log(line) })
      ran += 1
      passed += result.passedCount
      failed += result.failedCount
      if (quiet) for (const f of result.failures) console.log(`FAIL ${f}`)
      if (!result.passed) {
        console.log(`===== opencode logs and stderr (${result.name}) =====\n${result.diagnostics}\n===== end of logs =====`)
        worst = Math.max(worst, 1)
      }
      for (const root of result.roots ?? []) console.log(`kept: ${root}`)
      if (files.length > 1) console.log(`${result.name}: ${result.passedCount} passed, ${result.failedCount} failed`)
    } catch (err) {
      if (!(err instanceof ScenarioFileError)) throw err
      console.error(err.message)
      worst = 2
    }
  }
  await closeSharedHosts()
  if (ran > 0) console.log(`${passed} passed, ${failed} failed`)
  return worst
}

// Leaving through process.exit runs the harness's exit hooks: opencode process groups are killed and
// temp roots removed even on Ctrl-C (the detached groups do not receive the terminal's SIGINT).
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(130))

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err)
    process.exit(2)
  },
)
