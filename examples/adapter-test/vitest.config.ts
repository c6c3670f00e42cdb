import { defineConfig } from "vitest/config"

// This folder's own vitest configuration, as a consumer's project has one: without it, vitest run from a checkout
// would take this repository's configuration (found above), whose projects do not include examples/.
export default defineConfig({ test: { include: ["*.test.ts"] } })
