// A test's own folder in the OS temp dir (under vitest, the run's private one: see tmpdir.global-setup.ts).
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { onTestFinished } from "vitest"
import { RAM_TMPDIR_ENV } from "./tmpdir.global-setup"

/**
 * A fresh folder `<tmp>/<prefix>XXXXXX`, for a test or its beforeEach: removed once the test finished, after its
 * afterEach hooks (which close what still uses it), even when the test or a hook failed.
 */
export function tempDir(prefix: string): string {
  return freshDir(tmpdir(), prefix)
}

/**
 * The same on the run's RAM filesystem where the machine has one (else in the OS temp dir): real files and real
 * SQLite, without the disk's journaled metadata writes and syncs, which another run on the machine makes wait. For
 * tests that make a workspace and its database many times over (the model tests: one per path).
 */
export function ramTempDir(prefix: string): string {
  return freshDir(process.env[RAM_TMPDIR_ENV] ?? tmpdir(), prefix)
}

function freshDir(root: string, prefix: string): string {
  const dir = mkdtempSync(path.join(root, prefix))
  onTestFinished(() => rmSync(dir, { recursive: true, force: true, maxRetries: 3 }))
  return dir
}
