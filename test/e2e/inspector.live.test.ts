import { spawnSync } from "node:child_process"
import { rmSync } from "node:fs"
import path from "node:path"
import type { Browser, Page } from "playwright-core"
import { afterAll, expect, it } from "vitest"
import { ARTIFACTS, freePort, launchChromium, startInspectCli } from "../integration/inspector/browser"
import { closeSharedHosts, runScenario } from "./index"

// The live inspector on a real e2e workspace: opencode drafts a plan, `forgecharts inspect` runs beside it and a
// browser opens its page on the draft; the next turn approves the plan, and the page's highlighted state follows the
// approval within a second of its commit.

const ROOT = path.resolve(import.meta.dirname, "../..")
let browser: Browser | undefined
let inspector: Awaited<ReturnType<typeof startInspectCli>> | undefined
let page: Page | undefined

afterAll(async () => {
  await browser?.close()
  await inspector?.stop()
  await closeSharedHosts()
})

it("follows a plan from draft to approved while opencode runs, with the plugin's live stream pointed at it", async () => {
  // The page's address is in the plugin's options before the workspace exists: its port is chosen first.
  const port = await freePort()
  const result = await runScenario(
    {
      name: "inspector-live-plan",
      description: "A plan drafted, then approved, with the inspector's page open between the turns.",
      mode: "serve",
      // The built package, as a user installs it: the inspect option's WebSocket code runs bundled, in opencode's Bun.
      install: "package",
      workspace: { files: { "src/timeout.ts": "export const TIMEOUT_S = 30\n" }, git: true },
      pluginOptions: { inspect: `ws://127.0.0.1:${port}/inspect` },
      turns: [{ command: "plan", arguments: "raise the login timeout" }, { prompt: "Go ahead." }],
      permissions: [{ permission: "plan_approve", reply: "once" }],
      model: [
        {
          tool: "plan_write",
          args: { content: "# Raise the login timeout\n\n## Tasks\n- [ ] 1. Set TIMEOUT_S to 40\n\n## Acceptance Criteria\n- TIMEOUT_S is 40\n" },
        },
        { text: "Plan drafted; approve it to start." },
        { tool: "plan_approve", args: {} },
        { text: "Approved." },
      ],
      expect: { toolResults: [{ tool: "plan_approve", status: "completed", contains: "Plan approved" }] },
    },
    {
      keep: true,
      beforeTurn: async (turn, project) => {
        if (turn === 1) inspector = await startInspectCli(project, port)
        if (turn !== 2 || inspector === undefined) return
        browser = await launchChromium()
        page = await browser.newPage()
        await page.goto(`${inspector.url}?machine=plan`)
        await page.waitForSelector('#diagram[data-state="draft.editing"]', { timeout: 10_000 })
      },
    },
  )
  try {
    expect(result.failures).toEqual([])
    // The commit's time as the database has it, through the CLI's log.
    const project = path.join(result.root ?? "", "project")
    const log = spawnSync(path.join(ROOT, "node_modules/.bin/tsx"), [path.join(ROOT, "src/cli.ts"), "log", project, "--machine", "plan", "--json"], {
      encoding: "utf8",
    })
    const approved = (JSON.parse(log.stdout) as { at: string; to: string }[]).find((t) => t.to === "approved.working")
    expect(approved, log.stdout + log.stderr).toBeDefined()
    const shown = page as Page
    await shown.waitForSelector('#diagram[data-state="approved.working"]', { timeout: 5_000 })
    const shownAt = Number(await shown.locator("#diagram").getAttribute("data-shown-at"))
    expect(shownAt - Date.parse(approved?.at ?? "")).toBeLessThan(1_000)
    expect(await shown.locator("#diagram g.forge-active > title").allTextContents()).toEqual(["cluster_plan.approved", "plan.approved.working"])
    // The plugin's `inspect` option sent its actors' snapshots to the page's endpoint.
    expect(await shown.locator("#status").textContent()).toMatch(/[1-9]\d* live snapshots from the plugin/)
    await shown.screenshot({ path: path.join(ARTIFACTS, "plan-approved.png") })
  } finally {
    await inspector?.stop()
    if (result.root !== undefined) rmSync(result.root, { recursive: true, force: true })
  }
}, 180_000)
