// The tiny runner the Bun-side checks share (Bun inside opencode runs them without a test framework): one line per
// check, then `<label> passed=<n> failed=<n>`; the exit code is 1 when a check failed.

export async function runChecks(label: string, checks: Iterable<readonly [string, () => Promise<void>]>, afterEach: () => void = () => {}): Promise<void> {
  let passed = 0
  let failed = 0
  for (const [name, body] of checks) {
    try {
      await body()
      passed += 1
      console.log(`ok - ${name}`)
    } catch (error) {
      failed += 1
      console.log(`not ok - ${name}\n${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
    } finally {
      afterEach()
    }
  }
  console.log(`${label} passed=${passed} failed=${failed}`)
  process.exitCode = failed === 0 ? 0 : 1
}
