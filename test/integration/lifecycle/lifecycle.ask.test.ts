import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { type SnapshotFrom, assertEvent, assign, setup } from "xstate"
import { type LifecycleStore, openLifecycleStore } from "../../../adapters/storage/lifecycle.store"
import { isAnswerToOpenDialog, nextDialog, staleAnswerText } from "../../../machines/dialog.gates"
import { stateToString } from "../../../machines/state.text"
import { GateRefusal } from "../../../services/lifecycle/gate.refusal"
import type { DialogRequest } from "../../../services/lifecycle/lifecycle.ports"
import { LifecycleHost } from "../../../services/lifecycle/lifecycle.host"
import { restoreLive } from "../../../services/lifecycle/lifecycle.restore.live"
import { memoryLogger } from "../plan/plan.helpers"

// The kernel's `ask`: the user's answer reaches the machine naming the dialog it answers, and the machine's
// `isAnswerToOpenDialog` guard (machines/dialog.gates.ts) refuses an answer to a dialog that closed meanwhile — even
// when the instance is back in the same dialog state — in whichever opencode process the answer arrives. Two
// processes are two hosts on one real SQLite database (a shared lifecycle).

type DoorEvent = { type: "door.open" } | { type: "door.back" } | { type: "dialog.allow"; dialog: number } | { type: "dialog.reject"; dialog: number }

const doorMachine = setup({
  types: {
    context: {} as { dialog: number; opened: number },
    events: {} as DoorEvent,
    tags: {} as "awaiting-user",
  },
  guards: {
    isAnswerToOpenDialog: ({ context, event }) => {
      assertEvent(event, ["dialog.allow", "dialog.reject"])
      return isAnswerToOpenDialog({ open: context.dialog, answered: event.dialog })
    },
  },
  actions: {
    openDialog: assign({ dialog: ({ context }) => nextDialog(context.dialog) }),
    countOpening: assign({ opened: ({ context }) => context.opened + 1 }),
    ring: () => {
      throw new Error("door action ring not provided")
    },
  },
}).createMachine({
  id: "door",
  context: { dialog: 0, opened: 0 },
  initial: "closed",
  states: {
    closed: { on: { "door.open": { target: "asking" } } },
    asking: {
      tags: ["awaiting-user"],
      entry: "openDialog",
      on: {
        "dialog.allow": { guard: "isAnswerToOpenDialog", target: "open", actions: ["countOpening", "ring"] },
        "dialog.reject": { guard: "isAnswerToOpenDialog", target: "closed" },
        "door.back": { target: "closed" },
      },
    },
    open: { on: { "door.back": { target: "closed" } } },
  },
})

type DoorSnapshot = SnapshotFrom<typeof doorMachine>

const explain = (snapshot: DoorSnapshot, event: DoorEvent): string => {
  if ((event.type === "dialog.allow" || event.type === "dialog.reject") && snapshot.hasTag("awaiting-user"))
    return staleAnswerText({ subject: "door d", status: stateToString(snapshot.value), answered: event.dialog, open: snapshot.context.dialog })
  return `door d is ${stateToString(snapshot.value)}: it takes no ${event.type} now`
}

const REQUEST: DialogRequest = { permission: "door_open", subject: "door d", summary: "Open door d?" }

describe("the kernel's ask", () => {
  let dir: string
  let store: LifecycleStore
  let failRing = false
  const rings: number[] = []

  /** A process on the database; `afterStep` runs after each step's commit, before the process adopts the step. */
  const process = (afterStep?: (host: LifecycleHost) => Promise<void>) => {
    const repository: LifecycleStore["repository"] = Object.create(store.repository)
    repository.step = async (...args) => {
      const written = await store.repository.step(...args)
      await afterStep?.(host)
      return written
    }
    const host: LifecycleHost = new LifecycleHost({ repository: async () => repository, clock: { now: () => 1_000 }, log: memoryLogger() })
    return host.define({
      machine: doorMachine,
      implementations: {
        actions: {
          ring: async ({ context }) => {
            if (failRing) throw new Error("the bell is broken")
            rings.push(context.opened)
          },
        },
      },
      explain,
      metaOf: () => ({ sessionId: null, document: null }),
      shared: true,
    })
  }
  const answers =
    (dialog: number) =>
    (allowed: boolean): DoorEvent =>
      allowed ? { type: "dialog.allow", dialog } : { type: "dialog.reject", dialog }

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "forge-ask-"))
    store = await openLifecycleStore(dir)
    failRing = false
    rings.length = 0
  })
  afterEach(async () => {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it("a restore never takes up an instance this process stepped, even one its first look at the database read before the step was adopted", async () => {
    // The process's first refresh lands between a step's commit and its adoption (a hook racing the start on a loaded
    // machine): it reads the process's own new record as if another process had written it.
    const door = process((host) => host.refresh())
    await door.create("d", undefined)
    await door.dispatch("d", { type: "door.open" })
    const followedUp: string[] = []
    const report = await restoreLive(door, store.repository, async (instanceId) => {
      followedUp.push(instanceId)
    })
    expect(followedUp, "no restore follow-up (a goal's closes its dialog) for an instance this process holds").toEqual([])
    expect(report.restored).toEqual([])
    expect(door.snapshot("d")?.value).toBe("asking")
  })

  it("gives the machine the answer to the dialog it opened: an allow moves on, a reject goes back", async () => {
    const door = process()
    await door.create("d", undefined)
    const asking = await door.dispatch("d", { type: "door.open" })
    expect(asking.context.dialog, "the first dialog").toBe(1)
    const allowed = await door.ask("d", REQUEST, async () => true, answers(asking.context.dialog))
    expect(allowed.allowed).toBe(true)
    expect(allowed.snapshot.value).toBe("open")
    expect(rings).toEqual([1])
    await door.dispatch("d", { type: "door.back" })
    const again = await door.dispatch("d", { type: "door.open" })
    expect(again.context.dialog, "every entry opens a new dialog").toBe(2)
    const rejected = await door.ask("d", REQUEST, async () => false, answers(again.context.dialog))
    expect(rejected).toMatchObject({ allowed: false, snapshot: { value: "closed" } })
  })

  it("refuses an answer to a dialog that closed while it was open, even with the door back in the same dialog state", async () => {
    const here = process()
    const there = process()
    await here.create("d", undefined)
    const asked = (await here.dispatch("d", { type: "door.open" })).context.dialog
    let answer!: (allowed: boolean) => void
    const pending = here.ask("d", REQUEST, () => new Promise<boolean>((resolve) => (answer = resolve)), answers(asked))
    // Meanwhile another process closes that dialog and opens the next one: the same state, another dialog.
    await there.refresh()
    await there.dispatch("d", { type: "door.back" })
    const reopened = await there.dispatch("d", { type: "door.open" })
    expect(reopened.value).toBe(here.snapshot("d")?.value)
    expect(reopened.context.dialog).toBe(asked + 1)
    answer(true)
    const error = await pending.then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(GateRefusal)
    expect((error as Error).message).toBe(
      "answer refused: it is for dialog 1 of door d, which closed while it was open (dialog 2 was opened since; door d is asking now: another command, or another opencode process on this workspace, moved it). This answer changes nothing. Ask again if it still matters.",
    )
    expect(rings, "the stale allow opened nothing").toEqual([])
    expect((await store.repository.getSnapshot("door", "d"))?.snapshot, "the other process's dialog is still open").toMatchObject({
      value: "asking",
      context: { dialog: 2 },
    })
    const current = await there.ask("d", REQUEST, async () => true, answers(reopened.context.dialog))
    expect(current.snapshot.value, "the open dialog's own answer still counts").toBe("open")
  })

  it("answers a failing dialog with a no, then throws its error", async () => {
    const door = process()
    await door.create("d", undefined)
    const asked = (await door.dispatch("d", { type: "door.open" })).context.dialog
    await expect(door.ask("d", REQUEST, async () => Promise.reject(new Error("the TUI went away")), answers(asked))).rejects.toThrow("the TUI went away")
    expect(door.snapshot("d")?.value).toBe("closed")
  })

  it("closes the dialog as a no when the allow cannot be committed, so nobody is left with a dialog they cannot answer", async () => {
    const door = process()
    await door.create("d", undefined)
    const asked = (await door.dispatch("d", { type: "door.open" })).context.dialog
    failRing = true
    await expect(door.ask("d", REQUEST, async () => true, answers(asked))).rejects.toThrow("the bell is broken")
    expect(door.snapshot("d")?.value).toBe("closed")
    expect((await store.repository.getSnapshot("door", "d"))?.snapshot).toMatchObject({ value: "closed" })
  })
})
