import { describe, expect, it } from "vitest"
import { completionFragment } from "../../../adapters/opencode/completion.fragment"
import type { FragmentContext } from "../../../adapters/opencode/forge.fragment"
import { ready } from "../../../adapters/opencode/lazy"
import type { Completions } from "../../../services/completion/completion"

// attempt_completion's tool: the partition and the argument parse come before the service, and the tool part's title
// says what happened (not what the model is told to do next).

function tool(answer = "Result recorded. Your work on this task is done: tell the user the result in a few lines and end your turn.") {
  const attempts: string[] = []
  const completions = {
    attempt: async (_session: string, result: string) => {
      attempts.push(result)
      return answer
    },
  } as unknown as Completions
  const ctx = { access: { forTool: async () => ({ runtime: {}, session: "s1" }) } } as unknown as FragmentContext
  const definition = completionFragment(ctx, ready(completions)).tools?.attempt_completion
  if (definition === undefined) throw new Error("no attempt_completion")
  const call = (args: unknown, agent = "forge") => definition.execute(args as never, { agent, sessionID: "s1", ask: async () => {} } as never)
  return { call, attempts }
}

describe("attempt_completion's tool", () => {
  it("presents a result and titles the line with what happened", async () => {
    const { call, attempts } = tool()
    expect(await call({ result: "parser done: 12 tests pass" })).toEqual({
      output: expect.stringMatching(/^Result recorded\. /),
      title: "Result recorded",
      metadata: { session: "s1" },
    })
    expect(attempts).toEqual(["parser done: 12 tests pass"])
  })

  it("a goal's answer keeps its path in the title", async () => {
    const { call } = tool("Goal completed: .opencode/goal/2026-12-02-green.md. Every check passed in the host's own run (revision 1).")
    expect(await call({ result: "green" })).toMatchObject({ title: "Goal completed: .opencode/goal/2026-12-02-green.md" })
  })

  it("refuses a blank or an oversized result, naming the argument, before anything runs", async () => {
    const { call, attempts } = tool()
    await expect(call({ result: "" })).rejects.toThrow(/^attempt_completion: argument "result" must not be empty/)
    await expect(call({ result: " \n\t " })).rejects.toThrow(/^attempt_completion: argument "result" must not be empty/)
    await expect(call({ result: "x".repeat(20_001) })).rejects.toThrow(
      /^attempt_completion: argument "result" must be at most 20000 characters long \(got 20001 characters\)$/,
    )
    await expect(call({})).rejects.toThrow(/^attempt_completion: argument "result" is missing \(expected a string\)$/)
    await expect(call({ result: 42 })).rejects.toThrow(/^attempt_completion: argument "result" must be a string \(got number\)$/)
    expect(attempts).toEqual([])
  })

  it("is the forge agent's alone: a worker or another agent is refused before its arguments are read", async () => {
    const { call, attempts } = tool()
    await expect(call({ result: 7 }, "build")).rejects.toThrow(/^agent partition: attempt_completion belongs to the forge agent, and build/)
    await expect(call({ result: "done" }, "forge-coder")).rejects.toThrow(/^agent partition: attempt_completion is primary-only/)
    expect(attempts).toEqual([])
  })
})
