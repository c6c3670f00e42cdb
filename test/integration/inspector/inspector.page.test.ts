import { request } from "node:http"
import { mkdtempSync, rmSync } from "node:fs"
import { networkInterfaces, tmpdir } from "node:os"
import path from "node:path"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { GoalCheck } from "../../../services/goal/goal.contract"
import { type GoalProcess, openGoalProcess } from "../../model/goal.process"
import { seedMigratedDatabase } from "../../model/migrated.database"
import { ARTIFACTS, launchChromium, startInspectCli } from "./browser"

// `forgecharts inspect` in a real browser, on a workspace whose database holds a real goal: the page lists it, draws its
// machine with the current state highlighted and guards on the edges, shows its document and log, follows a change
// made by another process within a second, filters, loads nothing but its own server, and refuses a foreign Host.

let dir = ""
let goalPath = ""
let goals: GoalProcess
let browser: Browser
let inspector: Awaited<ReturnType<typeof startInspectCli>>

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "forge-inspect-"))
  await seedMigratedDatabase(dir)
  goals = await openGoalProcess(dir, Date.now())
  const checks: GoalCheck[] = [{ kind: "command", command: "true", timeoutS: 10 }]
  goals.runner.checks = checks
  const contract = { objective: "ship the inspector", success: [], checks, constraints: [], nonGoals: [], budgets: { maxTurns: 3, maxMinutes: 10 } }
  goalPath = (await goals.service.write("ses_inspect", contract, { by: "user" })).goalPath
  ;[browser, inspector] = await Promise.all([launchChromium(), startInspectCli(dir)])
}, 60_000)

afterAll(async () => {
  await browser?.close()
  expect(await inspector?.stop()).toBe(0)
  await goals?.rt.close()
  rmSync(dir, { recursive: true, force: true })
})

const activeStates = (page: Page) => page.locator("#diagram g.forge-active > title").allTextContents()

describe("forgecharts inspect", () => {
  it("shows the goal with its diagram, state, document and log, and follows a change within a second", async () => {
    const page = await browser.newPage()
    const requests: string[] = []
    page.on("request", (r) => requests.push(r.url()))
    await page.goto(inspector.url)
    await expect.poll(() => page.locator("#instances .instance").count()).toBe(1)
    await expect.poll(() => activeStates(page)).toEqual(["cluster_goal.active", "goal.active.working"])
    expect(await page.locator("#facts").textContent()).toContain("session ses_inspect")
    // Guards are named on the edges.
    expect(await page.locator("#diagram svg").textContent()).toMatch(/goal\.complete \[\w+\]/)
    await expect.poll(() => page.locator("#document").textContent()).toContain("ship the inspector")
    expect(await page.locator("#log").textContent()).toContain("goal.arm")

    await goals.service.pause("ses_inspect", "user")
    const committed = Date.now()
    // Waited for longer than the bound, so a slow page fails on the measured time below, not on a timeout.
    await page.waitForSelector('#diagram[data-state="paused.stopped"]', { timeout: 10_000 })
    const shownAt = Number(await page.locator("#diagram").getAttribute("data-shown-at"))
    expect(shownAt - committed, "ms from the commit to the page showing it").toBeLessThan(1_000)
    await expect.poll(() => activeStates(page)).toEqual(["cluster_goal.paused", "goal.paused.stopped"])
    expect(await page.locator("#log").textContent()).toContain("goal.pause")
    await page.screenshot({ path: path.join(ARTIFACTS, "goal-paused.png"), fullPage: true })

    const origin = new URL(inspector.url).origin
    expect(requests.filter((url) => !url.startsWith(origin))).toEqual([])
    expect(requests).toContain(`${origin}/diagram/goal.svg`)
    await page.close()
  })

  it("filters by machine and by session, from the controls or the address", async () => {
    const page = await browser.newPage()
    await page.goto(`${inspector.url}?machine=plan`)
    await expect.poll(() => page.locator("#instances").textContent()).toContain("no lifecycle matches the filters")
    await page.selectOption("#filter-machine", "goal")
    await expect.poll(() => page.locator("#instances .instance").count()).toBe(1)
    await page.goto(`${inspector.url}?session=ses_other`)
    await expect.poll(() => page.locator("#instances").textContent()).toContain("no lifecycle matches the filters")
    await page.selectOption("#filter-session", "ses_inspect")
    await expect.poll(() => page.locator("#instances .instance").count()).toBe(1)
    expect(await page.locator("#instances .instance .id").textContent()).toBe(
      goalPath.length > 28 ? `${goalPath.slice(0, 12)}…${goalPath.slice(-12)}` : goalPath,
    )
    await page.close()
  })

  it("answers only its own local address: a foreign Host header is refused, and it listens on 127.0.0.1 alone", async () => {
    const { port } = new URL(inspector.url)
    const get = (host: string, address = "127.0.0.1") =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request({ host: address, port: Number(port), path: "/", headers: { host } }, (res) => {
          let body = ""
          res.on("data", (c: Buffer) => {
            body += c.toString()
          })
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
        })
        req.on("error", reject)
        req.end()
      })
    expect((await get(`127.0.0.1:${port}`)).status).toBe(200)
    expect((await get(`localhost:${port}`)).status).toBe(200)
    const rebound = await get(`attacker.example:${port}`)
    expect(rebound.status).toBe(403)
    expect(rebound.body).toContain("is not this inspector's local address")
    expect((await get("127.0.0.1:1")).status).toBe(403)
    const outside = Object.values(networkInterfaces())
      .flat()
      .find((a) => a !== undefined && a.family === "IPv4" && !a.internal)
    if (outside !== undefined) await expect(get(`${outside.address}:${port}`, outside.address)).rejects.toThrow(/ECONNREFUSED/)
  })
})
