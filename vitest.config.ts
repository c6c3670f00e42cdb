import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Which files share the cores is chosen by the npm scripts: the pure and in-process tests two at a time, the tests
    // that time real process trees (integration/process, crossprocess, jobs, watchdog, leftovers) and e2e one at a time.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // A private OS temp dir per run; the run fails naming anything a test left in it.
    globalSetup: ["test/tmpdir.global-setup.ts"],
  },
})
