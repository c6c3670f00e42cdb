import { existsSync, readFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, it } from "vitest"
import { type AnyStateMachine, StateMachine } from "xstate"
import { FORGE_TOOL_IDS } from "../../../machines/agent.partition"
import { machineCatalog } from "../../../machines/index"
import { type LiveConfig, applyForgeConfig } from "../../../adapters/opencode/config.hook"
import type { ForgeFragment, FragmentContext } from "../../../adapters/opencode/forge.fragment"
import { type Lazy, ready } from "../../../adapters/opencode/lazy"
import { defaultForgeOptions } from "../../../services/config/forge.options"
import type { LifecycleParts, ModuleName, StartFacts } from "../../../src/forge.module"
import { FORGE_MODULES } from "../../../src/modules"

// Every module against docs/adding-a-lifecycle.md: the parts the guide names, in the files it names, and the lazy part
// agreeing with its machine. Adding a lifecycle means copying one lifecycle's folders and its module entry; this test
// says which part a copy forgot.

const ROOT = path.join(import.meta.dirname, "../../..")
const GUIDE = readFileSync(path.join(ROOT, "docs/adding-a-lifecycle.md"), "utf8")
const lifecycles = FORGE_MODULES.flatMap((module) => (module.kind === "lifecycle" ? [module] : []))

/** The files the guide's list names for every lifecycle, `<name>` filled in. */
function guideFiles(name: string): string[] {
  const list = /```\n([\s\S]*?)```/.exec(GUIDE)?.[1]
  if (list === undefined) throw new Error("docs/adding-a-lifecycle.md has no file list (its first fenced block)")
  return (
    list
      .split("\n")
      .map((line) => line.trim().split(/\s+/)[0] ?? "")
      .filter((file) => file.includes("<name>"))
      // A folder of files (the e2e scenarios) is named by a glob inside it.
      .map((file) => file.replaceAll("<name>", name).replace(/\*\.\w+$/, ""))
  )
}

/**
 * The effects a machine declares as placeholders in its setup() (they throw "… not provided"), with those of the
 * machines it invokes (a child's effects are its parent's to run): the lifecycle's factory supplies them all.
 */
function declaredEffects(machine: AnyStateMachine): string[] {
  const children = Object.values(machine.implementations.actors).filter((actor): actor is AnyStateMachine => actor instanceof StateMachine)
  return [...new Set([...placeholdersOf(machine), ...children.flatMap(placeholdersOf)])].sort()
}

function placeholdersOf(machine: AnyStateMachine): string[] {
  const isPlaceholder = (action: unknown) => {
    // assign, emit and the other built-in actions are objects of XState's own, with a `type`; they are no effects.
    if (typeof action !== "function" || "type" in action) return false
    try {
      action({ context: {}, event: { type: "probe" } }, {})
      return false
    } catch (error) {
      return error instanceof Error && error.message.endsWith("not provided")
    }
  }
  return Object.entries(machine.implementations.actions)
    .filter(([, action]) => isPlaceholder(action))
    .map(([name]) => name)
    .sort()
}

describe("the module list", () => {
  it("names each module once, and the six lifecycles are the machine catalog's six machines", () => {
    const names = FORGE_MODULES.map((module) => module.name)
    expect(new Set(names).size).toBe(names.length)
    expect(lifecycles.map((module) => module.name).sort()).toEqual(["crew", "goal", "job", "loop", "plan", "watchdog"])
  })

  it("registers every Forge tool in exactly one module", () => {
    const ids = FORGE_MODULES.flatMap((module) => module.toolIds)
    expect(new Set(ids).size).toBe(ids.length)
    expect([...ids].sort()).toEqual([...FORGE_TOOL_IDS].sort())
  })

  it("the guide's file list names the module's own files in src/", () => {
    expect(guideFiles("x")).toEqual(expect.arrayContaining(["src/x/x.module.ts", "src/x/x.lazy.ts"]))
  })

  it("the slash commands the modules answer are the ones the config hook registers", () => {
    const cfg: LiveConfig = {}
    applyForgeConfig(cfg, [], defaultForgeOptions)
    expect(Object.keys(cfg.command ?? {}).sort()).toEqual(FORGE_MODULES.flatMap((module) => module.commands).sort())
  })

  it.each(FORGE_MODULES.map((module) => [module.name, module] as const))("the %s fragment registers exactly the module's tools", (_, module) => {
    // Building a fragment only closes over its context and handle: nothing is asked of them until a hook or tool runs.
    const context = { options: defaultForgeOptions } as FragmentContext
    const start = { workspace: ROOT, shellFamily: "posix", repository: async () => undefined }
    const fragment = (module.fragment as (c: FragmentContext, h: Lazy<never>, s: StartFacts) => ForgeFragment)(context, ready(undefined as never), start)
    expect(fragment.id).toBe(module.name)
    expect([...fragment.toolIds].sort()).toEqual([...module.toolIds].sort())
    expect(Object.keys(fragment.tools ?? {}).sort()).toEqual([...module.toolIds].sort())
  })
})

describe.each(lifecycles.map((module) => [module.name, module] as const))("the %s module", (name, module) => {
  let parts: LifecycleParts<ModuleName>
  const load = async () => (parts ??= (await module.load()) as LifecycleParts<ModuleName>)

  it("has every file the guide names", () => {
    const missing = guideFiles(name).filter((file) => !existsSync(path.join(ROOT, file)))
    expect(missing, `${name}: files the guide names that do not exist`).toEqual([])
  })

  it("hosts the catalog's machine of its name", async () => {
    const { machine } = await load()
    expect(machine.id).toBe(name)
    expect(machineCatalog).toContain(machine)
  })

  it("supplies every effect its machine declares, and nothing it does not", async () => {
    const { machine, createImplementations } = await load()
    // The factories only close over their dependencies: building one asks nothing of them.
    const implementations = createImplementations({} as never) as { actions?: Record<string, unknown> }
    expect(Object.keys(implementations.actions ?? {}).sort()).toEqual(declaredEffects(machine))
  })

  it("has a birth gate exactly when its machine can refuse a birth (a final `refused` state)", async () => {
    const { machine, explainBirthRefusal } = await load()
    const refuses = machine.root.states.refused?.type === "final"
    expect(explainBirthRefusal === null ? "no birth gate" : "birth gate").toBe(refuses ? "birth gate" : "no birth gate")
  })

  it("names its restore and driver policies consistently", async () => {
    const { restore, driver } = await load()
    // An instance that dies with its process has nothing to restore, and one that is restored has a driver after a restart.
    if (restore.when === "never") expect(driver.kind).toBe("own-process")
    else expect(driver.kind).not.toBe("own-process")
  })
})

describe("driver claims", () => {
  it("each lifecycle a claim drives has a claim kind of its own", async () => {
    const kinds: string[] = []
    for (const module of lifecycles) {
      const { driver } = (await module.load()) as LifecycleParts<ModuleName>
      if (driver.kind === "claim") kinds.push(driver.claimKind)
    }
    expect(kinds.sort()).toEqual(["goal", "job", "loop"])
  })
})
