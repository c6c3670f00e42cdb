import { describe, expect, it } from "vitest"
import { z } from "zod"
import { DocumentError, DocumentInputError } from "../../../services/documents/document.errors"
import { splitFrontmatter, startsWithFrontmatter } from "../../../services/documents/frontmatter.block"
import { createFrontmatterCodec } from "../../../services/documents/frontmatter.codec"

// The codec is not the plan's: a goal-like kind with a number, a list and an optional key proves it reads, renders
// and patches whatever schema and field order a document kind brings.

interface GoalFields {
  status: "queued" | "active" | "paused"
  objective: string
  budget: number
  checks: string[]
  note?: string
}

const goalSchema: z.ZodType<GoalFields> = z.object({
  status: z.enum(["queued", "active", "paused"], {
    error: (iss) => (iss.input === undefined ? "missing status" : `unknown status ${JSON.stringify(iss.input)}`),
  }),
  objective: z.string({ error: "missing objective" }).min(1, { message: "objective is empty" }),
  budget: z
    .number({ error: (iss) => `budget must be a number, got ${JSON.stringify(iss.input)}` })
    .int()
    .positive(),
  checks: z.array(z.string(), { error: "checks must be a list of commands" }).min(1, { message: "checks is empty" }),
  note: z.string().optional(),
})

const goals = createFrontmatterCodec<GoalFields>({
  kind: "goal",
  schema: goalSchema,
  order: ["status", "objective", "budget", "checks", "note"],
  removable: ["note"],
})

const SOURCE = ".opencode/goal/2026-12-01-ship.md"
const FIELDS: GoalFields = { status: "queued", objective: "Ship the login fix", budget: 40, checks: ["npm test", "npm run lint"] }
const BODY = "# Ship\n\nSome prose.\n"
const doc = (yaml: readonly string[], body = BODY) => ["---", ...yaml, "---", body].join("\n")

function thrown(fn: () => unknown): unknown {
  try {
    fn()
  } catch (error) {
    return error
  }
  throw new Error("expected a throw")
}

function documentError(fn: () => unknown): DocumentError {
  const error = thrown(fn)
  expect(error).toBeInstanceOf(DocumentError)
  return error as DocumentError
}

describe("a frontmatter codec for a non-plan schema", () => {
  it("renders the fields in the kind's order, numbers and lists included, and reads them back", () => {
    const yaml = goals.render({ checks: ["npm test", "npm run lint"], budget: 40, objective: "Ship the login fix", status: "queued" })
    expect(yaml).toBe("status: queued\nobjective: Ship the login fix\nbudget: 40\nchecks:\n  - npm test\n  - npm run lint\n")
    const text = `---\n${yaml}---\n${BODY}`
    const { fields, block } = goals.parse(text, SOURCE)
    expect(fields).toEqual(FIELDS)
    expect(block.body).toBe(BODY)
    expect(block.closeLine).toBe(8)
  })

  it("quotes text YAML would read as something else", () => {
    for (const objective of ["2026", "true", "a: b", "# not a comment", "null", "---", "[x]"]) {
      const text = `---\n${goals.render({ ...FIELDS, objective })}---\n`
      expect(goals.parse(text, SOURCE).fields.objective).toBe(objective)
    }
  })

  it("refuses to render fields the schema refuses, naming the kind", () => {
    const error = thrown(() => goals.render({ ...FIELDS, budget: -1 }))
    expect(error).toBeInstanceOf(DocumentInputError)
    expect((error as Error).message).toMatch(/^invalid goal frontmatter: /)
  })

  it("names the document and the line of the field at fault", () => {
    const wrongBudget = documentError(() => goals.parse(doc(["status: queued", "objective: x", 'budget: "lots"', "checks: [a]"]), SOURCE))
    expect(wrongBudget.message).toBe(`${SOURCE}:4: budget must be a number, got "lots"`)
    expect(wrongBudget.line).toBe(4)
    const missing = documentError(() => goals.parse(doc(["status: queued", "budget: 3", "checks: [a]"]), SOURCE))
    expect(missing.message).toBe(`${SOURCE}:1: missing objective`)
    const several = documentError(() => goals.parse(doc(["status: done", "objective: x", "budget: 0", "checks: []"]), SOURCE))
    expect(several.message).toBe(`${SOURCE}:2: unknown status "done" (+2 more frontmatter problems)`)
  })

  it("reports YAML syntax, a non-mapping and a missing or unterminated block where they are", () => {
    expect(documentError(() => goals.parse(doc(["status: queued", "objective: a: b"]), SOURCE)).message).toBe(
      `${SOURCE}:3: YAML syntax error in frontmatter: Nested mappings are not allowed in compact mappings`,
    )
    expect(documentError(() => goals.parse(doc(["budget: 1", "budget: 2"]), SOURCE)).line).toBe(3)
    expect(documentError(() => goals.parse(doc(["- a", "- b"]), SOURCE)).message).toBe(`${SOURCE}:2: frontmatter must be a mapping of keys to values`)
    expect(documentError(() => goals.parse(BODY, SOURCE)).message).toMatch(/:1: missing frontmatter/)
    expect(documentError(() => goals.parse("---\nstatus: queued\n", SOURCE)).message).toMatch(/:1: unterminated frontmatter/)
  })

  it("patches a number and a list in place and keeps every other byte", () => {
    const text = doc(["# by hand", "status: queued  # not yet", "objective: Ship", "budget: 40", "checks:", "  - npm test", "owner: me"])
    const next = goals.patch(text, SOURCE, { budget: 60, checks: ["npm test", "npm run e2e"] })
    expect(next).toBe(
      doc(["# by hand", "status: queued  # not yet", "objective: Ship", "budget: 60", "checks:", "  - npm test", "  - npm run e2e", "owner: me"]),
    )
    expect(goals.parse(next, SOURCE).fields).toEqual({ status: "queued", objective: "Ship", budget: 60, checks: ["npm test", "npm run e2e"] })
  })

  it("appends an absent key before the closing line, removes a removable one, and keeps CRLF", () => {
    const text = doc(["status: queued", "objective: Ship", "budget: 40", "checks: [a]"]).replace(/\n/g, "\r\n")
    const noted = goals.patch(text, SOURCE, { note: "started by hand" })
    expect(noted).toBe(text.replace("checks: [a]\r\n", "checks: [a]\r\nnote: started by hand\r\n"))
    expect(goals.patch(noted, SOURCE, { note: undefined })).toBe(text)
  })

  it("refuses a patch that removes a required key, names an unknown key, or leaves the fields invalid", () => {
    const text = `---\n${goals.render(FIELDS)}---\n`
    expect(() => goals.patch(text, SOURCE, { budget: undefined })).toThrow(new DocumentInputError('frontmatter key "budget" is required and cannot be removed'))
    expect(() => goals.patch(text, SOURCE, { owner: "me" } as Partial<GoalFields>)).toThrow(
      'frontmatter key "owner" is not a goal key (expected one of status, objective, budget, checks, note)',
    )
    expect(documentError(() => goals.patch(text, SOURCE, { checks: [] })).message).toBe(`${SOURCE}:5: checks is empty`)
  })
})

describe("locating the frontmatter", () => {
  it("tells a text that opens with its own block, leading blank lines and a BOM aside", () => {
    expect(startsWithFrontmatter("\uFEFF\n\n---\na: 1\n---\nbody")).toBe(true)
    expect(startsWithFrontmatter("# Title\n---\na: 1\n---\n")).toBe(false)
    expect(startsWithFrontmatter("---\na: 1\n")).toBe(false)
  })

  it("gives the YAML, the body and the closing line", () => {
    expect(splitFrontmatter("---\na: 1\n---\nbody\n", SOURCE)).toEqual({
      yaml: "a: 1\n",
      yamlStart: 4,
      closeStart: 9,
      closeLine: 3,
      body: "body\n",
      eol: "\n",
    })
  })
})
