import { execFile } from "node:child_process"
import type { CheckOutcome, GoalCheck, GoalCheckRunner } from "forgecharts/services"

// The goal's checks, run by this harness itself: a command must exit 0 within its timeout, a file must hold a text.

export class CommandChecks implements GoalCheckRunner {
  constructor(private readonly cwd: string) {}

  run(check: GoalCheck): Promise<CheckOutcome> {
    if (check.kind === "contains") return Promise.resolve({ pass: false, summary: "file checks are not run by this harness", outputTail: "" })
    return new Promise((resolve) => {
      execFile("/bin/sh", ["-c", check.command], { cwd: this.cwd, timeout: check.timeoutS * 1000 }, (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1
        resolve({ pass: code === 0, summary: `exit code ${code}`, outputTail: `${stdout}${stderr}`.slice(-500) })
      })
    })
  }
}
