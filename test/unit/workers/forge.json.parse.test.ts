import { describe, expect, it } from "vitest"
import { parseForgeJson } from "../../../services/workers/forge.json.parse"

// One forge.json, fail-soft field by field: what applies, and what each finding says.

const FILE = "/home/u/project/.opencode/forge.json"
const parse = (text: string) => parseForgeJson(text, FILE)
const messages = (text: string) => parse(text).findings.map((f) => `${f.level} ${f.message}`)

describe("a well-formed file", () => {
  it("reads pinned and Auto workers with their optional fields, in written order, without findings", () => {
    const parsed = parse(`{
      // JSONC: comments and trailing commas are fine
      "$schema": "https://example.invalid/forge.json",
      "pool": "aa",
      "agents": {
        "research": { "model": "zai-coding-plan/glm-5.3", "thoughtLevel": "low", "prompt": "Find things.", },
        "scout": {},
        "coder": {
          "model": "openrouter/anthropic/claude-x", "thoughtLevel": "XHigh", "shape": "write",
          "description": "Writes code", "permission": { "bash": { "git *": "allow", "*": "ask" }, "webfetch": "deny" },
        },
      },
    }`)
    expect(parsed.findings).toEqual([])
    expect(parsed.pool).toBe("aa")
    expect(parsed.agents).toEqual([
      { id: "research", kind: "pinned", model: "zai-coding-plan/glm-5.3", thoughtLevel: "low", prompt: "Find things.", shape: "readonly" },
      { id: "scout", kind: "auto", shape: "readonly" },
      {
        id: "coder",
        kind: "pinned",
        model: "openrouter/anthropic/claude-x",
        thoughtLevel: "XHigh",
        shape: "write",
        description: "Writes code",
        permission: { bash: { "git *": "allow", "*": "ask" }, webfetch: "deny" },
      },
    ])
  })

  it("a file without agents has none and says nothing; a byte-order mark is no error", () => {
    expect(parse("{}")).toEqual({ agents: [], findings: [] })
    expect(parse('\uFEFF{ "agents": { "a": {} } }').agents).toEqual([{ id: "a", kind: "auto", shape: "readonly" }])
  })
})

describe("a file that is no forge.json empties its layer with one error", () => {
  it("a syntax error names its line:column and kind", () => {
    const parsed = parse('{\n  "agents": {\n    "a": { "model": "x/y" "thoughtLevel": "low" }\n  }\n}')
    expect(parsed.agents).toEqual([])
    expect(parsed.findings).toEqual([{ level: "error", source: FILE, message: `${FILE}: syntax error at 3:27: CommaExpected; the file is ignored` }])
  })

  it("several syntax errors still make one finding, counting the rest; valid entries before them do not apply", () => {
    const parsed = parse('{ "agents": { "ok": {}, "b": { "model": } } ')
    expect(parsed.agents).toEqual([])
    expect(parsed.findings).toHaveLength(1)
    expect(parsed.findings[0]?.message).toMatch(/syntax error at 1:41: ValueExpected \(and 1 more\); the file is ignored$/)
  })

  it("an empty file is a syntax error at 1:1", () => {
    expect(messages("")).toEqual([`error ${FILE}: syntax error at 1:1: ValueExpected; the file is ignored`])
  })

  it("a top level that is no object, or agents that are no object", () => {
    expect(messages('[{ "agents": {} }]')).toEqual([`error ${FILE}: the top level must be an object; the file is ignored`])
    const parsed = parse('{ "agents": ["coder"] }')
    expect(parsed.agents).toEqual([])
    expect(parsed.findings.map((f) => f.level)).toEqual(["error"])
    expect(parsed.findings[0]?.message).toContain('"agents" must be an object of id → entry; got ["coder"]')
  })
})

describe("the atomic pair", () => {
  it("exactly one half skips the entry with an error naming the missing half; its siblings apply", () => {
    const parsed = parse(`{ "agents": {
      "a": { "model": "p/m" },
      "b": { "thoughtLevel": "high" },
      "c": {}
    } }`)
    expect(parsed.agents.map((a) => a.id)).toEqual(["c"])
    expect(parsed.findings.map((f) => f.level)).toEqual(["error", "error"])
    expect(parsed.findings[0]?.message).toContain('agent "a": model is set but thoughtLevel is missing')
    expect(parsed.findings[1]?.message).toContain('agent "b": thoughtLevel is set but model is missing')
    expect(parsed.findings[0]?.message).toContain("set both for a pinned worker, or neither for an Auto worker")
  })

  it("a mistyped half counts as absent: a warning for the field, then the entry's error", () => {
    const parsed = parse('{ "agents": { "a": { "model": "p/m", "thoughtLevel": 3 }, "b": { "model": "no-slash", "thoughtLevel": "low" } } }')
    expect(parsed.agents).toEqual([])
    expect(messages('{ "agents": { "a": { "model": "p/m", "thoughtLevel": 3 } } }')).toEqual([
      `warning ${FILE}: agent "a": "thoughtLevel" must be one word (none, low, medium, high, max, or a level name of the model); got 3; ignored`,
      `error ${FILE}: agent "a": model is set but thoughtLevel is invalid; model and thoughtLevel go together, so the entry is skipped (set both for a pinned worker, or neither for an Auto worker)`,
    ])
    expect(parsed.findings.filter((f) => f.level === "error").map((f) => f.message)).toEqual([
      expect.stringContaining("model is set but thoughtLevel is invalid"),
      expect.stringContaining("thoughtLevel is set but model is invalid"),
    ])
  })

  it("both halves mistyped leave an Auto worker, with a warning each", () => {
    const parsed = parse('{ "agents": { "a": { "model": "/m", "thoughtLevel": "two words" } } }')
    expect(parsed.agents).toEqual([{ id: "a", kind: "auto", shape: "readonly" }])
    expect(parsed.findings.map((f) => f.level)).toEqual(["warning", "warning"])
  })
})

describe("field-level fail-soft", () => {
  it("a mistyped optional field is ignored with a warning and the entry is kept", () => {
    const parsed = parse('{ "agents": { "a": { "prompt": 1, "description": "  ", "shape": "rw" } } }')
    expect(parsed.agents).toEqual([{ id: "a", kind: "auto", shape: "readonly" }])
    expect(parsed.findings.map((f) => [f.level, f.message.replace(`${FILE}: `, "")])).toEqual([
      ["warning", 'agent "a": "prompt" must be a non-empty string; got 1; ignored'],
      ["warning", 'agent "a": "description" must be a non-empty string; got "  "; ignored'],
      ["warning", 'agent "a": "shape" must be "readonly" or "write"; got "rw"; ignored'],
    ])
  })

  it("a permission keeps its valid tools and drops the others; a permission that is no object is ignored", () => {
    const parsed = parse(
      '{ "agents": { "a": { "permission": { "bash": "deny", "edit": "maybe", "read": { "*.env": "nope" } } }, "b": { "permission": "allow" } } }',
    )
    expect(parsed.agents).toEqual([
      { id: "a", kind: "auto", shape: "readonly", permission: { bash: "deny" } },
      { id: "b", kind: "auto", shape: "readonly" },
    ])
    expect(parsed.findings.map((f) => f.message.replace(`${FILE}: `, ""))).toEqual([
      'agent "a": permission "edit" must be "allow", "ask", "deny" or an object of pattern → one of them; got "maybe"; ignored',
      'agent "a": permission "read" must be "allow", "ask", "deny" or an object of pattern → one of them; got {"*.env":"nope"}; ignored',
      'agent "b": "permission" must be an object of tool → "allow" | "ask" | "deny"; got "allow"; ignored',
    ])
  })

  it("depths is deprecated, unknown fields and keys are named; the entry and file still apply", () => {
    expect(messages('{ "colour": "red", "agents": { "a": { "depths": ["low", "high"], "temperature": 0.2 } } }')).toEqual([
      `warning ${FILE}: unknown key "colour" ignored (known: pool, agents)`,
      `warning ${FILE}: agent "a": "depths" is deprecated and ignored: pin one thoughtLevel instead`,
      `warning ${FILE}: agent "a": unknown field "temperature" ignored`,
    ])
    expect(parse('{ "agents": { "a": { "depths": [], "temperature": 0.2 } } }').agents).toEqual([{ id: "a", kind: "auto", shape: "readonly" }])
  })

  it("an entry that is no object is skipped with an error; its siblings apply", () => {
    const parsed = parse('{ "agents": { "a": "p/m", "b": {}, "c": null } }')
    expect(parsed.agents.map((a) => a.id)).toEqual(["b"])
    expect(parsed.findings.map((f) => [f.level, f.message.replace(`${FILE}: `, "")])).toEqual([
      ["error", 'agent "a": an entry must be an object; got "p/m"; skipped'],
      ["error", 'agent "c": an entry must be an object; got null; skipped'],
    ])
  })

  it("a field written twice: the last one applies, with a warning", () => {
    const parsed = parse('{ "agents": { "a": { "model": "p/m", "model": 5, "thoughtLevel": "low" } } }')
    expect(parsed.agents).toEqual([])
    expect(parsed.findings.map((f) => f.level)).toEqual(["warning", "warning", "error"])
    expect(parsed.findings[0]?.message).toContain('agent "a": "model" is written twice; the last one applies')
  })
})

describe("ids", () => {
  it("the forge- prefix is stripped, every repetition, with a warning", () => {
    const parsed = parse('{ "agents": { "forge-coder": {}, "forge-forge-review": {} } }')
    expect(parsed.agents.map((a) => a.id)).toEqual(["coder", "review"])
    expect(parsed.findings.map((f) => [f.level, f.message.replace(`${FILE}: `, "")])).toEqual([
      ["warning", 'agent "forge-coder": Forge adds the "forge-" prefix itself, so the id is read as "coder"; rename the entry to silence this'],
      ["warning", 'agent "forge-forge-review": Forge adds the "forge-" prefix itself, so the id is read as "review"; rename the entry to silence this'],
    ])
  })

  it("an invalid id is skipped with an error; ids keep their case", () => {
    const parsed = parse('{ "agents": { "forge-": {}, "a/b": {}, "-x": {}, "has space": {}, "Coder_2": {} } }')
    expect(parsed.agents.map((a) => a.id)).toEqual(["Coder_2"])
    const errors = parsed.findings.filter((f) => f.level === "error").map((f) => f.message.replace(`${FILE}: `, ""))
    expect(errors).toEqual(
      ['agent "forge-"', 'agent "a/b"', 'agent "-x"', 'agent "has space"'].map(
        (label) => `${label}: an id must start with a letter or digit and hold only letters, digits, '_' and '-'; skipped`,
      ),
    )
  })

  it("an id defined twice (written twice, or once with the prefix) keeps the last definition and names the others", () => {
    const parsed = parse(`{ "agents": {
      "coder": { "shape": "write" },
      "scout": {},
      "coder": { "description": "second" },
      "forge-coder": { "description": "third" }
    } }`)
    expect(parsed.agents).toEqual([
      { id: "scout", kind: "auto", shape: "readonly" },
      { id: "coder", kind: "auto", shape: "readonly", description: "third" },
    ])
    expect(parsed.findings.filter((f) => f.level === "error").map((f) => f.message.replace(`${FILE}: `, ""))).toEqual([
      'agent "coder" (line 2) is defined again at line 5 as id "coder"; only the last definition applies',
      'agent "coder" (line 4) is defined again at line 5 as id "coder"; only the last definition applies',
    ])
  })

  it("a broken last definition still wins: the id is absent rather than silently the earlier one", () => {
    const parsed = parse('{ "agents": { "a": {}, "a": { "model": "p/m" } } }')
    expect(parsed.agents).toEqual([])
    expect(parsed.findings.map((f) => f.level)).toEqual(["error", "error"])
  })
})

describe("pool", () => {
  it.each([["AA"], ["-aa"], ["aa-"], ["a".repeat(25)], [""], [7], ["a_b"]])("%j is invalid: a warning, treated as absent", (pool) => {
    const parsed = parse(JSON.stringify({ pool, agents: { a: {} } }))
    expect(parsed.pool).toBeUndefined()
    expect(parsed.agents).toHaveLength(1)
    expect(parsed.findings).toEqual([
      {
        level: "warning",
        source: FILE,
        message: `${FILE}: "pool" must be 1-24 of a-z, 0-9 and '-' (not at either end); got ${JSON.stringify(pool)}; the directory name is used instead`,
      },
    ])
  })

  it.each([["a"], ["web-2"], ["a".repeat(24)]])("%j is valid", (pool) => {
    expect(parse(JSON.stringify({ pool })).pool).toBe(pool)
  })
})
