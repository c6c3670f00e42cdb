import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"

// Five projects, by what a test costs and what it may share the machine with:
// - pure: machines, gates, codecs, documents; no process, no database: on threads, every core.
// - integration: the real services on real SQLite, files and git, and the model-based tests; forks, every core.
//   Both share a worker's module graph between files (isolate: false): importing it anew for each file cost more
//   CPU than many of the tests. A test that changes what others see undoes it (vi.unstubAllEnvs, its own temp dirs).
// - processes: tests that time real process trees (kill, containment, races between processes): one file at a time.
// - hostile: every Forge tool given hostile input, asserting clear errors, a responsive event loop and nothing
//   changed outside the workspace; forks.
// - e2e: real opencode (test/e2e/README.md); scenarios share the machine's lanes (FORGE_E2E_LANES, default 2).
// `npm test` (scripts/test.mjs) runs e2e beside the others; `npx vitest run` runs them group after group.

/** The integration folders whose tests time real process trees: named once, for both projects. */
const PROCESS_FOLDERS = ["process", "crossprocess", "jobs", "watchdog", "leftovers"]
const processTests = PROCESS_FOLDERS.map((folder) => `test/integration/${folder}/**/*.test.ts`)

export default defineConfig({
  test: {
    testTimeout: 30_000,
    // Every core (vitest keeps one back by default: one worker on two cores, and the model tests' waits then go unused).
    maxWorkers: availableParallelism(),
    hookTimeout: 60_000,
    // A private OS temp dir per run; the run fails naming anything a test left in it.
    globalSetup: ["test/tmpdir.global-setup.ts"],
    projects: [
      { extends: true, test: { name: "pure", include: ["test/unit/**/*.test.ts"], pool: "threads", isolate: false } },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts", "test/model/**/*.test.ts"],
          exclude: processTests,
          pool: "forks",
          isolate: false,
        },
      },
      // Every Forge tool given hostile input (docs/development.md, npm run test:hostile); real processes and SQLite, no opencode.
      { extends: true, test: { name: "hostile", include: ["test/hostile/**/*.test.ts"], pool: "forks" } },
      { extends: true, test: { name: "processes", include: processTests, pool: "forks", fileParallelism: false, sequence: { groupOrder: 1 } } },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          pool: "forks",
          // One file at a time, its tests two at a time (describe.concurrent): the lanes decide how many opencode run at
          // once, and a second file would only wait for them inside its tests' timeouts.
          maxWorkers: 1,
          maxConcurrency: 2,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
})
