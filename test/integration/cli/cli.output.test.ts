import { spawnSync } from "node:child_process"
import path from "node:path"
import { describe, expect, it } from "vitest"
import { openLifecycleStore } from "../../../adapters/storage/lifecycle.store"
import { ramTempDir } from "../../temp.dir"

// A report larger than a pipe holds (64 KiB) reaches a reader that takes its time whole: the CLI exits only once stdout
// has taken everything. It used to exit at once, and `forgecharts status --json | jq` read JSON cut short.

const ROOT = path.resolve(import.meta.dirname, "../../..")
const INSTANCES = 1_000
/**
 * The CLI's stdout into a real pipe (a Node child's stdout is a socket pair, which holds the whole report), whose
 * reader takes the first line, sleeps a second, then copies the rest: by then the CLI has written what the pipe holds.
 */
const SLOW_READER = '"$0" "$@" | { IFS= read -r first; sleep 1; printf "%s\\n" "$first"; cat; }'

describe("forgecharts output through a pipe", () => {
  it(`status --json of ${INSTANCES} instances reaches a slow reader whole`, async () => {
    const dir = ramTempDir("forge-cli-output-")
    const store = await openLifecycleStore(dir)
    for (let i = 0; i < INSTANCES; i++) {
      const planPath = `.opencode/plan/2026-12-05-plan-${i}.md`
      const context = { planPath, sessionId: `ses_${i}`, tasks: [{ number: 1, ticked: true }], criteria: ["it works"] }
      await store.repository.saveSnapshot({
        machineId: "plan",
        machineVersion: "1",
        instanceId: planPath,
        sessionId: `ses_${i}`,
        state: "done",
        terminal: true,
        snapshot: { status: "done", value: "done", context },
        document: planPath,
        updatedAt: Date.parse("2026-12-05T08:00:00.000Z") + i,
      })
    }
    await store.close()

    const tsx = path.join(ROOT, "node_modules/.bin/tsx")
    const result = spawnSync("bash", ["-o", "pipefail", "-c", SLOW_READER, tsx, path.join(ROOT, "src/cli.ts"), "status", dir, "--json"], {
      encoding: "utf8",
      maxBuffer: 16 * 1024 * 1024,
      timeout: 60_000,
    })
    expect(result.status, result.stderr).toBe(0)
    expect(result.stdout.length).toBeGreaterThan(4 * 65_536)
    const report = JSON.parse(result.stdout) as { instances: { instance: string; detail: string }[] }
    expect(report.instances).toHaveLength(INSTANCES)
    expect(report.instances.at(-1)).toMatchObject({ instance: ".opencode/plan/2026-12-05-plan-999.md", detail: "tasks 1/1 ticked" })
  })
})
