import type { ToolContext, ToolDefinition } from "@opencode-ai/plugin"

// What opencode passes a tool's execute(): the test drives the real tool definitions with it, args raw as the host
// hands them over (untyped JSON from the model).

export function toolContext(sessionID: string, directory: string, asked: string[] = []): ToolContext {
  return {
    sessionID,
    messageID: "msg_test",
    agent: "forge",
    directory,
    worktree: directory,
    abort: new AbortController().signal,
    metadata: () => undefined,
    ask: async (input) => void asked.push(input.permission),
  }
}

/** Calls a tool with raw, unvalidated args, as opencode does; resolves to the text result. */
export async function callRaw(definition: ToolDefinition | undefined, raw: unknown, ctx: ToolContext): Promise<string> {
  if (definition === undefined) throw new Error("no such tool")
  const result = await definition.execute(raw as never, ctx)
  return typeof result === "string" ? result : result.output
}

/** Rejects when `promise` has not settled within `ms`: tells "returned" from "hung", nothing finer. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not return within ${ms} ms`)), ms)
  })
  return Promise.race([promise, hung]).finally(() => clearTimeout(timer))
}
