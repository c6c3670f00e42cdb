import { existsSync, mkdirSync, symlinkSync } from "node:fs"
import path from "node:path"
import type { PluginInput } from "@opencode-ai/plugin"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { tempDir } from "../../temp.dir"
import { createJobTools } from "../../../adapters/opencode/job/job.tools"
import { defaultForgeOptions } from "../../../services/config/forge.options"
import { type HostJobs, createHostJobs } from "../../../src/job/job.lazy"
import { callRaw, toolContext } from "../opencode/tool.context"
import { memoryLogger } from "../plan/plan.helpers"
import { BwrapSandboxes } from "../../../adapters/sandbox/loop.sandboxes"
import { findBwrap } from "../../../adapters/sandbox/bwrap.probe"

// The real forge_shell / forge_jobs definitions over a real supervisor (real processes and logs), driven with raw
// args as opencode 1.18.33 passes them. Only opencode's client is absent: no call here reaches it.

describe("job tools parse their raw arguments at the boundary", () => {
  let dir: string
  let hostJobs: HostJobs
  let tools: ReturnType<typeof createJobTools>
  let asked: string[]
  const shell = (raw: unknown) => callRaw(tools.forge_shell, raw, toolContext("s1", dir, asked))
  const jobs = (raw: unknown) => callRaw(tools.forge_jobs, raw, toolContext("s1", dir, asked))

  beforeEach(() => {
    dir = tempDir("forge-job-args-")
    asked = []
    hostJobs = createHostJobs({
      client: {} as PluginInput["client"],
      log: memoryLogger(),
      clock: { now: () => Date.now() },
      logDir: path.join(dir, "logs"),
      repository: async () => undefined,
    })
    tools = createJobTools({
      options: defaultForgeOptions,
      supervisor: async () => hostJobs.supervisor,
      rootOf: async (id) => id,
      sandboxOf: async () => null,
      shellFamily: "POSIX sh",
    })
  })
  afterEach(async () => {
    await hostJobs.supervisor.dispose?.()
    hostJobs.uninstall()
  })

  it("forge_shell asks no dialog in a sealed session (read-only, offline: an auditor's), and asks in any other", async () => {
    const bwrap = findBwrap()
    expect(bwrap, "bubblewrap is installed (apt install bubblewrap)").toBeDefined()
    const confined = (writable: boolean) =>
      createJobTools({
        options: defaultForgeOptions,
        supervisor: async () => hostJobs.supervisor,
        rootOf: async (id) => id,
        sandboxOf: async () => new BwrapSandboxes({ mode: "bwrap", network: false, workspace: dir }).sandboxFor({ worktree: dir, writable, network: false }),
        shellFamily: "POSIX sh",
      }).forge_shell
    const sealed = await callRaw(confined(false), { command: "echo x > written.txt; echo ran" }, toolContext("s1", dir, asked))
    expect(asked, "a sealed session's shell asks nothing").toEqual([])
    expect(sealed).toContain("Read-only file system")
    expect(sealed).toContain("ran")
    expect(existsSync(path.join(dir, "written.txt"))).toBe(false)
    await callRaw(confined(true), { command: "echo x > written.txt" }, toolContext("s1", dir, asked))
    expect(asked, "a shell that may write asks").toEqual(["forge_shell"])
    expect(existsSync(path.join(dir, "written.txt"))).toBe(true)
  })

  it("forge_jobs names a bad action, a wrong type, an unknown and a missing argument", async () => {
    await expect(jobs({ action: "bogus" })).rejects.toThrow(
      /^forge_jobs: argument "action" must be one of list, poll, log, kill, clear, handoff \(got "bogus"\)$/,
    )
    await expect(jobs({})).rejects.toThrow(/^forge_jobs: argument "action" is missing \(expected one of list, poll, log, kill, clear, handoff\)$/)
    await expect(jobs({ action: "list", verbose: true })).rejects.toThrow(/^forge_jobs: unknown argument "verbose"$/)
    await expect(jobs({ action: "poll", jobId: 5, waitMs: 60_000 })).rejects.toThrow(
      /^forge_jobs: argument "jobId" must be a string \(got number\); argument "waitMs" must be at most 30000 \(got 60000\)$/,
    )
    await expect(jobs({ action: "log", jobId: "" })).rejects.toThrow(/^forge_jobs: argument "jobId" must not be empty \(got 0 characters\)$/)
    await expect(jobs({ action: "poll" })).rejects.toThrow(/^forge_jobs: argument "jobId" is missing \(action "poll" needs the job's id; list shows them\)$/)
    await expect(jobs("list")).rejects.toThrow(/^forge_jobs: arguments must be an object \(got string\)$/)
    expect(await jobs({ action: "list" })).toMatch(/no jobs/i)
  })

  it("forge_shell refuses hostile args before the permission ask and before anything runs", async () => {
    await expect(shell({ command: 5 })).rejects.toThrow(/^forge_shell: argument "command" must be a string \(got number\)$/)
    await expect(shell({ cmd: "echo hi" })).rejects.toThrow(/^forge_shell: argument "command" is missing \(expected a string\); unknown argument "cmd"$/)
    await expect(shell({ command: "echo hi", idle_ms: -1, keep_alive: "no" })).rejects.toThrow(
      /^forge_shell: argument "keep_alive" must be true or false \(got string\); argument "idle_ms" must be greater than 0 \(got -1\)$/,
    )
    await expect(shell({ command: "echo hi", run_in_background: null })).rejects.toThrow(
      /^forge_shell: argument "run_in_background" must be true or false \(got null\)$/,
    )
    expect(asked).toEqual([])
    expect(await jobs({ action: "list" })).toMatch(/no jobs/i)
  })

  it("forge_shell in a cwd outside the project asks external_directory first (a link out counts), and a no runs nothing", async () => {
    const outside = tempDir("forge-job-outside-")
    symlinkSync(outside, path.join(dir, "out"))
    mkdirSync(path.join(dir, "sub"))
    expect(await shell({ command: "pwd", cwd: "sub" })).toContain(`cwd: ${path.join(dir, "sub")}`)
    expect(asked, "inside the project: only the shell's own ask").toEqual(["forge_shell"])
    asked.length = 0
    expect(await shell({ command: "pwd", cwd: "out" })).toContain("status: exited with exit code 0")
    expect(asked).toEqual(["external_directory", "forge_shell"])
    const refusing = {
      ...toolContext("s1", dir),
      ask: async (input: { permission: string }) => {
        if (input.permission === "external_directory") throw new Error("rejected")
      },
    }
    await expect(callRaw(tools.forge_shell, { command: "touch made-outside", cwd: outside }, refusing)).rejects.toThrow(
      `forge_shell: cwd ${outside} is outside this session's project (${dir}) and running there was not allowed (the external_directory permission).`,
    )
    expect(existsSync(path.join(outside, "made-outside"))).toBe(false)
  })

  it("defaults are applied by the parse: a bare command runs in the foreground, forge_jobs log pages from line 1", async () => {
    const result = await shell({ command: "printf 'one\\ntwo\\n'" })
    expect(asked).toEqual(["forge_shell"])
    expect(result).toMatch(/status: exited with exit code 0\n.*\noutput \(tail\):\none\ntwo/)
    const started = await shell({ command: "printf 'one\\ntwo\\n'; exec sleep 30", run_in_background: true })
    const jobId = /job: (\S+)/.exec(started)?.[1]
    // The default waitMs (0) answers at once; the default offset/limit page the log from line 1.
    for (let polls = 0; polls < 50 && !(await jobs({ action: "log", jobId })).includes("2: two"); polls++) await jobs({ action: "poll", jobId, waitMs: 200 })
    expect(await jobs({ action: "log", jobId })).toMatch(/^1: one\n2: two$/m)
    await jobs({ action: "kill", jobId })
  })

  it("forge_shell and forge_jobs answer with a title and metadata: where it ran, the job, its state and the output's last lines", async () => {
    const result = await tools.forge_shell.execute({ command: "printf 'one\\ntwo\\nthree\\nfour\\n'; exit 3" } as never, toolContext("s1", dir, asked))
    if (typeof result === "string") throw new Error("forge_shell answers with a title and metadata")
    expect(result.metadata).toEqual({ dir, job: expect.stringMatching(/^job_/), state: "exited with exit code 3", output: "two ⏎ three ⏎ four" })
    expect(result.title).toBe(`Job ${result.metadata?.job}: exited with exit code 3`)
    // A delivered result leaves the list; a job still running is in it.
    const started = await shell({ command: "exec sleep 30", run_in_background: true })
    const list = await tools.forge_jobs.execute({ action: "list" } as never, toolContext("s1", dir, asked))
    expect(typeof list === "string" ? list : [list.title, list.metadata]).toEqual(["1 job(s)", { jobs: 1 }])
    await jobs({ action: "kill", jobId: /job: (\S+)/.exec(started)?.[1] })
  })
})
