// A test's own folder in the OS temp dir (under vitest, the run's private one: see tmpdir.global-setup.ts).
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { onTestFinished } from "vitest"

/**
 * A fresh folder `<tmp>/<prefix>XXXXXX`, for a test or its beforeEach: removed once the test finished, after its
 * afterEach hooks (which close what still uses it), even when the test or a hook failed.
 */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix))
  onTestFinished(() => rmSync(dir, { recursive: true, force: true, maxRetries: 3 }))
  return dir
}
