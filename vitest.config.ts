import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Real processes and real opencode runs share 2 cores: keep e2e files serial, the rest parallel.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // A private OS temp dir per run; the run fails naming anything a test left in it.
    globalSetup: ["test/tmpdir.global-setup.ts"],
  },
})
