import { expect } from "vitest"
import type { SnapshotFrom } from "xstate"
import { type WatchdogEvent, type WatchdogInput, type watchdogMachine, watchdogPlaceOf } from "../../machines/watchdog/watchdog.machine"
import { MemoryWatchdogLedger } from "../../services/watchdog/watchdog.ledger"
import type { KillTarget, LocateRequest, LocatedProcess, WatchdogKiller, WatchdogLocator } from "../../services/watchdog/watchdog.ports"
import { WatchdogService } from "../../services/watchdog/watchdog.service"
import { FakeTicker, silentLogger } from "../unit/watchdog/watchdog.fakes"
import type { ModelStep, ModelSut } from "../../testing"

type WatchdogModel = typeof watchdogMachine
type Snapshot = SnapshotFrom<WatchdogModel>

/** Lets every promise the service chained settle (the fakes do no I/O: one turn of the event loop is enough). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve))

/** A locator that holds each wave's answer until the model sends `locate.done`. */
class HeldLocator implements WatchdogLocator {
  readonly marked = new Set<string>()
  readonly asked: { request: LocateRequest; answer: (found: LocatedProcess[]) => void }[] = []
  async markedCalls(callIds: readonly string[]) {
    return new Set(callIds.filter((id) => this.marked.has(id)))
  }
  locate(request: LocateRequest) {
    return new Promise<LocatedProcess[]>((answer) => void this.asked.push({ request: { ...request }, answer }))
  }
}

/** A killer that holds each kill until the model sends `kill.done`. */
class HeldKiller implements WatchdogKiller {
  readonly asked: { targets: KillTarget[]; answer: (result: { survivors: number[] }) => void }[] = []
  kill(targets: readonly KillTarget[]) {
    return new Promise<{ survivors: number[] }>((answer) => void this.asked.push({ targets: [...targets], answer }))
  }
}

/**
 * The one factory of the watchdog SUT: the real WatchdogService over a clock the test moves, a ticker it never
 * runs (the test calls the scanner pass itself), a held locator and killer, and the real in-memory ledger.
 */
export async function startWatchdogSut(input: WatchdogInput): Promise<ModelSut<WatchdogModel>> {
  let now = input.startedAt
  const locator = new HeldLocator()
  const killer = new HeldKiller()
  const ledger = new MemoryWatchdogLedger()
  const service = new WatchdogService({
    settings: { mode: input.mode, stallMs: input.stallMs, observeMs: input.observeMs, tickMs: 1_000 },
    clock: { now: () => now },
    ticker: new FakeTicker(),
    locator,
    killer,
    ledger,
    log: silentLogger(),
  })
  const watched = service.callStarted({ callId: input.callId, sessionId: input.sessionId, agent: "forge", tool: "bash", command: input.command })
  expect(watched, "the call is watched unless the mode is off").toBe(input.mode !== "off")
  await settle()
  return new WatchdogSut(input, service, locator, killer, ledger, (at) => {
    now = at
  })
}

/** Replays model events as the world would produce them; effects are held until the model answers them. */
class WatchdogSut implements ModelSut<WatchdogModel> {
  /** The ledger entries the model asked for so far (kinds, in order). */
  private readonly ledgered: string[] = []
  private located = 0
  private killed = 0

  constructor(
    private readonly input: WatchdogInput,
    private readonly service: WatchdogService,
    private readonly locator: HeldLocator,
    private readonly killer: HeldKiller,
    private readonly ledger: MemoryWatchdogLedger,
    private readonly setNow: (at: number) => void,
  ) {}

  async apply({ event, before, after, accepted, actions }: ModelStep<WatchdogModel>): Promise<void> {
    const written = (await this.ledger.list()).length
    await this.produce(event, before, accepted)
    await settle()
    // What this step ledgered names the pids the model chose.
    for (const entry of (await this.ledger.list()).slice(written)) {
      if (["kill", "dry-run", "degraded"].includes(entry.kind)) expect(entry.pids, `${entry.kind} pids`).toEqual(after.context.candidates)
    }
    // The effects the model asked for in this step, and only those, reached the ports.
    for (const action of actions) {
      if (action.type === "ledger") this.ledgered.push((action.params as { kind: string }).kind)
      if (action.type === "requestLocate") {
        const request = this.locator.asked[this.located++]?.request
        expect(request?.wave, "locate request").toBe((action.params as { wave: number }).wave)
        expect(request?.startedAt, "locate window").toBe(this.input.startedAt)
      }
      if (action.type === "requestKill") {
        const targets = this.killer.asked[this.killed++]?.targets
        expect(
          targets?.map((t) => t.pid),
          "kill targets",
        ).toEqual((action.params as { pids: number[] }).pids)
      }
    }
    expect(this.locator.asked.length, "locate requests").toBe(this.located)
    expect(this.killer.asked.length, "kill requests").toBe(this.killed)
    // Whatever the model says: only kill mode ever kills, and only processes created inside the call's window.
    if (this.input.mode !== "kill") expect(this.killer.asked, "kills outside kill mode").toEqual([])
    for (const { targets } of this.killer.asked)
      for (const target of targets) expect(target.startedAt, `kill target ${target.pid}`).toBeGreaterThanOrEqual(this.input.startedAt)
  }

  private async produce(event: WatchdogEvent, before: Snapshot, accepted: boolean): Promise<void> {
    switch (event.type) {
      case "marker.seen":
        // The scanner notices a marked process on a pass when no deadline is due (as at the call's start instant).
        this.locator.marked.add(this.input.callId)
        this.setNow(this.input.startedAt)
        return this.service.tick()
      case "watchdog.tick":
        this.setNow(event.now)
        return this.service.tick()
      case "locate.done": {
        const held = this.locator.asked[this.located - 1]
        expect(held !== undefined && before.hasTag("locating"), "a wave is being located").toBe(accepted)
        held?.answer(event.candidates.map((c) => ({ ...c, marked: false, command: `proc ${c.pid}` })))
        return
      }
      case "kill.done": {
        const held = this.killer.asked[this.killed - 1]
        expect(held !== undefined && before.hasTag("killing"), "a kill is running").toBe(accepted)
        this.setNow(event.at)
        held?.answer({ survivors: event.survivors })
        return
      }
      case "call.end":
        this.setNow(event.at)
        expect(this.service.callEnded(this.input.callId), "the call was watched").toBe(accepted)
    }
  }

  async agreesWith(model: Snapshot): Promise<void> {
    const watch = this.service.watchOf(this.input.callId)
    if (model.status === "done") {
      expect(watch, "a finished watch is gone from the service").toBeUndefined()
    } else {
      const { context } = model
      expect(watch, "service watch").toMatchObject({
        place: watchdogPlaceOf(model.value),
        startedAt: context.startedAt,
        markerSeen: context.markerSeen,
        wave: context.wave,
        candidates: context.candidates,
        survivors: context.survivors,
      })
    }
    // The store: the ledger holds exactly the entries the model asked for, with the pids the model chose.
    const entries = await this.ledger.list()
    expect(
      entries.map((e) => e.kind),
      "ledger",
    ).toEqual(this.ledgered)
    for (const entry of entries) expect(entry.callId).toBe(this.input.callId)
  }

  async stop(): Promise<void> {
    // Held effects are answered so nothing stays pending, then the service is disposed.
    for (const { answer } of this.locator.asked) answer([])
    for (const { answer } of this.killer.asked) answer({ survivors: [] })
    await this.service.dispose()
  }
}
