// Tests of the e2e harness's checks of what the fake model was asked: modelRequests and compactionRequests picked by
// number or by what they hold, their shape checked, evaluated against recorded requests. No opencode runs.
import { describe, expect, it } from "vitest"
import { evaluateExpectations } from "./expectations"
import { problemsOf, scratchDir } from "./harness.helpers"
import { type ModelRequestRecord, parseScenario } from "./index"

const scratch = scratchDir()

describe.concurrent("e2e harness", () => {
  it("modelRequests: picks a request by number or by what it holds (where), and checks its raw body", () => {
    expect(
      problemsOf({
        turns: [{ prompt: "x" }],
        expect: {
          modelRequests: [
            { toolsInclude: ["t"] },
            { request: 1, where: { turn: 1 } },
            { where: {} },
            { where: { server: 1, agent: "x" } },
            { request: 2, bodyExcludes: ["a..b"], body: [] },
          ],
        },
      }),
    ).toEqual([
      'expect.modelRequests[0]: a model request check needs exactly one of "request" (its number) or "where" (what it holds)',
      'expect.modelRequests[1]: a model request check needs exactly one of "request" (its number) or "where" (what it holds)',
      'expect.modelRequests[2].where: "where" needs at least one of "turn", "server", "workspace", "model", "message", "system" or "history"',
      'expect.modelRequests[3].where.agent: unknown key "agent"',
      "expect.modelRequests[4].body: Invalid input: expected record, received array",
      'expect.modelRequests[4].bodyExcludes[0]: a key path: keys joined with "." (e.g. "reasoning_effort")',
    ])
    expect(problemsOf({ turns: [{ prompt: "x" }], expect: { modelRequests: [{ where: { server: 1 } }] } })).toEqual([
      'expect.modelRequests[0].where.server: "server" applies to serve mode only',
    ])
    expect(problemsOf({ mode: "serve", turns: [{ prompt: "x" }], expect: { modelRequests: [{ where: { server: 2 }, body: { a: 1 } }] } })).toEqual([
      'expect.modelRequests[0].where.server: server 2 does not exist: the scenario starts 1 (see "servers")',
    ])

    // Two parallel worker requests (in either order), the orchestrator's, and a title request no check can pick.
    const request = (index: number, model: string, system: string, body: Record<string, unknown>): ModelRequestRecord => ({
      index,
      turn: 1,
      session: index === 0 ? 0 : 1,
      server: 1,
      workspace: 1,
      kind: index === 0 ? "title" : "step",
      reply: { text: "x" },
      callIds: [],
      lastRole: "user",
      userText: `task ${index}`,
      systemText: system,
      historyText: "[]",
      tools: ["read"],
      model,
      body: { model, ...body },
    })
    const requests = [
      request(0, "fake-model", "title", {}),
      request(1, "fake-model", "orchestrator", { stream: true }),
      request(2, "fake-model", "you are forge-scout", { stream: true }),
      request(3, "fake-pinned", "you are forge-deep", { stream: true, reasoning_effort: "high", stream_options: { include_usage: true } }),
    ]
    const scenario = parseScenario({
      turns: [{ prompt: "x" }],
      expect: {
        modelRequests: [
          { where: { model: "fake-pinned" }, system: { contains: "forge-deep" }, body: { reasoning_effort: "high", stream_options: { include_usage: true } } },
          { where: { system: { contains: "forge-scout" } }, bodyExcludes: ["reasoning_effort", "stream_options.include_usage"] },
          { where: { model: "fake-model", system: { notContains: "forge-" } }, message: { contains: "task 1" } },
          { where: { model: "fake-pinned" }, body: { reasoning_effort: "low", stream_options: { include_usage: false }, seed: 1 } },
          { where: { system: { contains: "forge-scout" } }, bodyExcludes: ["model", "stream_options"] },
          { where: { model: "fake-model" } },
          { where: { turn: 2 } },
          { request: 4 },
        ],
      },
    })
    const evidence = {
      project: scratch,
      toolResults: [],
      db: { exists: false, actors: [], transitions: [], watchdogLedger: [] },
      logs: "",
      modelRequests: requests,
    }
    const checks = evaluateExpectations(scenario.expect, evidence)
    expect(checks.map((c) => (c.ok ? `ok ${c.label}` : `FAIL ${c.label}: ${c.detail}`))).toEqual([
      "ok modelRequests[0] request where model fake-pinned (#3)",
      'ok modelRequests[1] request where system {"contains":"forge-scout"} (#2)',
      'ok modelRequests[2] request where model fake-model, system {"notContains":"forge-"} (#1)',
      'FAIL modelRequests[3] request where model fake-pinned (#3): body.reasoning_effort is "high", expected "low"; body.stream_options.include_usage is true, expected false; body.seed is missing, expected 1',
      'FAIL modelRequests[4] request where system {"contains":"forge-scout"} (#2): body.model is present: "fake-model"',
      'FAIL modelRequests[5] request where model fake-model: 2 requests match (#1, #2); narrow "where" down to one',
      "FAIL modelRequests[6] request where turn 2: no request matches; requests: #1 (turn 1, model fake-model), #2 (turn 1, model fake-model), #3 (turn 1, model fake-pinned)",
      "FAIL modelRequests[7] request #4: only 3 scripted request(s) arrived",
    ])
  })

  it("compactionRequests: picks opencode's compaction requests by their number among them, no scripted request", () => {
    expect(problemsOf({ turns: [{ prompt: "x" }], expect: { compactionRequests: [{ request: 0 }, { request: 1, where: { turn: 1 } }] } })).toEqual([
      "expect.compactionRequests[0].request: Too small: expected number to be >=1",
      'expect.compactionRequests[1].where: unknown key "where"',
    ])
    const compaction = (userText: string): ModelRequestRecord => ({
      index: 0,
      session: 0,
      turn: 1,
      server: 1,
      workspace: 1,
      kind: "compaction",
      reply: { text: "summary" },
      callIds: [],
      lastRole: "user",
      userText,
      systemText: "You are a context summarization agent.",
      historyText: "[]",
      tools: [],
      model: "fake-model",
      body: {},
    })
    const scenario = parseScenario({
      turns: [{ prompt: "x" }],
      expect: {
        compactionRequests: [
          { request: 2, message: { contains: "the goal's brief" }, system: { contains: "summarization" } },
          { request: 1, message: { contains: "the goal's brief" } },
          { request: 3 },
        ],
        modelRequests: [{ request: 1 }],
      },
    })
    const evidence = {
      project: scratch,
      toolResults: [],
      db: { exists: false, actors: [], transitions: [], watchdogLedger: [] },
      logs: "",
      modelRequests: [compaction("nothing yet"), compaction("with the goal's brief")],
    }
    expect(evaluateExpectations(scenario.expect, evidence).map((c) => (c.ok ? `ok ${c.label}` : `FAIL ${c.label}: ${c.detail}`))).toEqual([
      "FAIL modelRequests[0] request #1: only 0 scripted request(s) arrived",
      "ok compactionRequests[0] compaction #2",
      `FAIL compactionRequests[1] compaction #1: last user message does not contain "the goal's brief"; last user message: nothing yet`,
      "FAIL compactionRequests[2] compaction #3: only 2 compaction request(s) arrived",
    ])
  })
})
