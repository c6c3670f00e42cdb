// The host-aligned interpreter chosen from a given environment. Candidate shells are real executable files in a
// temp folder, so the resolver's existence checks run for real.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { resolveShell } from "../../../adapters/process/index"
import { makeTempDir } from "./process.helpers"

const temp = makeTempDir()
afterAll(() => temp.remove())

function executable(relative: string, mode = 0o755): string {
  const file = path.join(temp.dir, relative)
  mkdirSync(path.dirname(file), { recursive: true })
  writeFileSync(file, "#!/bin/sh\n")
  chmodSync(file, mode)
  return file
}

const loginBash = executable("login/bash")
const loginZsh = executable("login/zsh")
const loginFish = executable("login/fish")
const notExecutable = executable("plain/bash", 0o644)
const pathBash = executable("tools/bash")
const emptyDir = path.join(temp.dir, "empty")
mkdirSync(emptyDir)
const fixedBash = executable("fixed/bash")
const fixedSh = executable("fixed/sh")
// Fixed locations of this test's own: whether the machine has /bin/bash must not decide the outcome.
const noFixedBash = { bash: [path.join(temp.dir, "fixed/missing-bash")], sh: fixedSh }

describe("resolveShell", () => {
  it("takes $SHELL when it is bash", () => {
    const shell = resolveShell({ SHELL: loginBash, PATH: path.dirname(pathBash) })
    expect(shell.path).toBe(loginBash)
    expect(shell.family).toBe("bash")
    expect(shell.argv("echo hi")).toEqual(["-c", "echo hi"])
  })

  it("prefers a bash on PATH over a non-bash login shell", () => {
    expect(resolveShell({ SHELL: loginZsh, PATH: `${emptyDir}:${path.dirname(pathBash)}` })).toMatchObject({
      path: pathBash,
      family: "bash",
    })
  })

  it("skips a bash on PATH that is not executable, and relative PATH entries", () => {
    const shell = resolveShell({ SHELL: loginZsh, PATH: `${path.dirname(notExecutable)}:tools:${path.dirname(pathBash)}` })
    expect(shell.path).toBe(pathBash)
  })

  it("takes bash from its fixed locations before a non-bash login shell", () => {
    const locations = { bash: [path.join(temp.dir, "fixed/missing-bash"), fixedBash], sh: fixedSh }
    expect(resolveShell({ SHELL: loginZsh, PATH: emptyDir }, locations)).toMatchObject({ path: fixedBash, family: "bash" })
  })

  it("falls back to a POSIX login shell when no bash exists, else to sh", () => {
    expect(resolveShell({ SHELL: loginZsh, PATH: emptyDir }, noFixedBash)).toMatchObject({ path: loginZsh, family: "zsh" })
    expect(resolveShell({ SHELL: loginFish, PATH: emptyDir }, noFixedBash)).toMatchObject({ path: fixedSh, family: "sh" })
    expect(resolveShell({}, noFixedBash)).toMatchObject({ path: fixedSh, family: "sh" })
  })

  it("ignores a $SHELL that is not a POSIX shell, does not exist or is relative", () => {
    for (const SHELL of [loginFish, path.join(temp.dir, "missing/bash"), "bash", undefined]) {
      const shell = resolveShell({ SHELL, PATH: path.dirname(pathBash) })
      expect(shell.path, `SHELL=${SHELL}`).toBe(pathBash)
    }
  })

  it("resolves this host's environment to a shell that exists", () => {
    const shell = resolveShell()
    expect(path.isAbsolute(shell.path)).toBe(true)
    expect(["bash", "zsh", "ksh", "sh"]).toContain(shell.family)
  })
})
