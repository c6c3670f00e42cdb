import type { Confirm, DialogRequest } from "forgecharts/services"

// The user's dialog, on the console: the request is printed, and the answer is the one this harness was given (a
// real harness would read it from its user).

export function consoleDialog(answer: boolean, print: (line: string) => void): Confirm {
  return async (request: DialogRequest) => {
    print(`dialog [${request.permission}] ${request.subject}: ${request.summary}`)
    print(`  → ${answer ? "allowed" : "refused"}`)
    return answer
  }
}
