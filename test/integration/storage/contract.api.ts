// The test API a storage contract runs on (vitest under Node, bun:test inside opencode's Bun).

export interface ContractTestApi {
  test(name: string, body: () => Promise<void>): void
}
