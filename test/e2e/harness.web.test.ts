// Tests of the e2e harness's web pages: a scenario's "web" keys checked, and its pages served as written on 127.0.0.1.
import { describe, expect, it } from "vitest"
import { problemsOf } from "./harness.helpers"
import { parseScenario } from "./index"
import { startWebPages } from "./web-pages"

describe.concurrent("e2e harness", () => {
  it("web: pages served as written on 127.0.0.1, their keys strict, {{web}} only with pages to serve", async () => {
    expect(
      problemsOf({
        turns: [{ prompt: "fetch {{web}}/a" }],
        web: { a: { body: "x" }, "/b?q=1": { body: "x" }, "/c": { body: "x", type: "text/plain", status: 99, headers: { "bad header": "x" } } },
      }),
    ).toEqual([
      "web.a: invalid key: must start with / and hold no query, fragment or space",
      'web["/b?q=1"]: invalid key: must start with / and hold no query, fragment or space',
      'web["/c"].status: Too small: expected number to be >=200',
      'web["/c"].headers["bad header"]: invalid key: not a valid header name',
      'web["/c"].type: unknown key "type"',
    ])
    expect(problemsOf({ turns: [{ prompt: "x" }], model: [{ tool: "forge_fetch", args: { url: "{{web}}/a" } }] })).toEqual([
      'web: "{{web}}" is used, but the scenario declares no "web" pages to serve',
    ])
    const scenario = parseScenario({
      turns: [{ prompt: "x" }],
      web: { "/page": { body: "<h1>Hi</h1>" }, "/gone": { body: "moved", status: 301, headers: { Location: "/page" }, contentType: "text/plain" } },
    })
    const web = await startWebPages(scenario.web)
    try {
      expect(web.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      const page = await fetch(`${web.url}/page?x=1`)
      expect([page.status, page.headers.get("content-type"), await page.text()]).toEqual([200, "text/html; charset=utf-8", "<h1>Hi</h1>"])
      const gone = await fetch(`${web.url}/gone`, { redirect: "manual" })
      expect([gone.status, gone.headers.get("location")]).toEqual([301, "/page"])
      expect((await fetch(`${web.url}/nope`)).status).toBe(404)
      expect(web.requests).toEqual(["/page", "/gone", "/nope"])
    } finally {
      await web.close()
    }
  })
})
