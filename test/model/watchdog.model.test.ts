import { isDeepStrictEqual } from "node:util"
import { describe, expect, it } from "vitest"
import { type Actor, type SnapshotFrom, createActor, transition } from "xstate"
import { createTestModel } from "xstate/graph"
import { type WatchdogEvent, type WatchdogInput, watchdogMachine, watchdogPlaceOf } from "../../machines/watchdog.machine"
import { pathName } from "./path.name"
import {
  type WatchdogEffect,
  type WatchdogRecord,
  expectedWatchdogAfter,
  expectedWatchdogTags,
  initialWatchdogOutcome,
  isFinalWatchdogPlace,
  watchdogRecordOf,
} from "./watchdog.reference"

// Paths generated from the watchdog machine for each mode: shortest paths to every (state, context) reached by the
// event cases below, each extended by every event case. At every step the machine must agree with the reference rules
// in watchdog.reference.ts, and a live actor whose effects are recorders must request exactly the reference's effects.

type Snapshot = SnapshotFrom<typeof watchdogMachine>

const base: Omit<WatchdogInput, "mode"> = {
  callId: "call_model",
  sessionId: "ses_model",
  command: "node hang.js",
  startedAt: 10_000,
  stallMs: 60_000,
  observeMs: 5_000,
}
const modes: WatchdogInput["mode"][] = ["kill", "dry-run", "off"]

// Call window from 10000; warn due at 58000, stall at 70000; a kill reported at 72000 is observed until 77000.
const eventCases: WatchdogEvent[] = [
  { type: "marker.seen" },
  { type: "watchdog.tick", now: 57_999 },
  { type: "watchdog.tick", now: 58_000 },
  { type: "watchdog.tick", now: 69_999 },
  { type: "watchdog.tick", now: 70_000 },
  { type: "watchdog.tick", now: 76_999 },
  { type: "watchdog.tick", now: 77_000 },
  {
    type: "locate.done",
    wave: 1,
    candidates: [
      { pid: 300, startedAt: 10_000 },
      { pid: 200, startedAt: 9_999 },
      { pid: 301, startedAt: 40_000 },
    ],
  },
  {
    type: "locate.done",
    wave: 1,
    candidates: [
      { pid: 1, startedAt: 0 },
      { pid: 200, startedAt: 9_999 },
    ],
  },
  { type: "locate.done", wave: 2, candidates: [] },
  { type: "locate.done", wave: 2, candidates: [{ pid: 302, startedAt: 65_000 }] },
  { type: "kill.done", at: 72_000, survivors: [] },
  { type: "kill.done", at: 72_000, survivors: [301] },
  { type: "call.end", at: 80_000 },
]
/** When each pid of the event cases was created: a kill may only ever name pids created inside the call's window. */
const createdAt = new Map(eventCases.flatMap((e) => (e.type === "locate.done" ? e.candidates.map((c) => [c.pid, c.startedAt] as const) : [])))

function checkStep(input: WatchdogInput, before: Snapshot, record: WatchdogRecord, event: WatchdogEvent, after: Snapshot): WatchdogRecord {
  const expected = expectedWatchdogAfter(input, record, event)
  const actual = watchdogRecordOf(after)
  const handled = before.can(event)
  if (handled !== expected.handled || !isDeepStrictEqual(actual, expected.record)) {
    const detail = `${JSON.stringify(event)} from ${record.place}: machine ${JSON.stringify({ handled, record: actual })}, reference ${JSON.stringify(expected)}`
    expect.fail(`the machine and the reference disagree: ${detail}`)
  }
  expect(after.tags, `tags in ${actual.place}`).toEqual(new Set(expectedWatchdogTags(actual.place)))
  expect(after.status, `status in ${actual.place}`).toBe(isFinalWatchdogPlace(actual.place) ? "done" : "active")
  return expected.record
}

const models = modes.map((mode) => {
  const input: WatchdogInput = { ...base, mode }
  // The traversal stops at final states, as a live actor does; the extension step still probes every event there
  // (a final state must refuse them all).
  const paths = createTestModel(watchdogMachine, { input, events: eventCases, filterEvents: (state) => state.status === "active" }).getShortestPaths({ limit: 20_000 })
  return { input, paths }
})
type Path = (typeof models)[number]["paths"][number]

/** Replays one path and its extensions through the reference alone (pure, no actor). */
function walk(input: WatchdogInput, path: Path): WatchdogRecord[] {
  let record = initialWatchdogOutcome(input).record
  const initial = path.steps[0]!.state
  expect(watchdogRecordOf(initial)).toEqual(record)
  expect(initial.tags).toEqual(new Set(expectedWatchdogTags(record.place)))
  const records = [record]
  for (let i = 1; i < path.steps.length; i++) {
    const step = path.steps[i]!
    record = checkStep(input, path.steps[i - 1]!.state, record, step.event as WatchdogEvent, step.state)
    records.push(record)
  }
  for (const event of eventCases) checkStep(input, path.state, record, event, transition(watchdogMachine, path.state, event)[0])
  return records
}

/** The system under test: a live actor whose placeholder actions are recorders. */
function recordingActor(input: WatchdogInput): { actor: Actor<typeof watchdogMachine>; effects: WatchdogEffect[] } {
  const effects: WatchdogEffect[] = []
  const machine = watchdogMachine.provide({
    actions: {
      requestLocate: (_, { wave }) => void effects.push(`locate:${wave}`),
      requestKill: (_, { pids }) => void effects.push(`kill:${pids.join(",")}`),
      ledger: (_, { kind }) => void effects.push(`ledger:${kind}`),
    },
  })
  return { actor: createActor(machine, { input }).start(), effects }
}

for (const { input, paths } of models) {
  describe(`watchdog machine paths (mode ${input.mode})`, () => {
    it("reaches every state the mode allows", () => {
      const reached = new Set(paths.flatMap((p) => p.steps.map((s) => watchdogPlaceOf(s.state.value))))
      const expected: Record<WatchdogInput["mode"], string[]> = {
        kill: ["timing", "warned", "locating", "killing", "observing", "dryRun", "unresolved", "finished"],
        "dry-run": ["timing", "warned", "locating", "dryRun", "unresolved", "finished"],
        off: ["off"],
      }
      expect([...reached].sort()).toEqual(expected[input.mode].sort())
    })

    for (const path of paths) {
      it(pathName(path.state.value, path.steps), async () => {
        const records = walk(input, path)
        // The same path through a live actor: same state, and exactly the effects the reference asks for, step by step.
        const { actor, effects } = recordingActor(input)
        let step = 0
        let record = initialWatchdogOutcome(input).record
        try {
          await path.test({
            events: Object.fromEntries(
              eventCases.map((e) => [
                e.type,
                (s: { event: { type: string } }) => {
                  const event = s.event as WatchdogEvent
                  const expected = expectedWatchdogAfter(input, record, event)
                  const seen = effects.length
                  if (actor.getSnapshot().status === "active") actor.send(event)
                  expect(effects.slice(seen), `effects of ${JSON.stringify(event)}`).toEqual(expected.effects)
                },
              ]),
            ),
            states: {
              "*": (state) => {
                expect(actor.getSnapshot().value).toEqual(state.value)
                expect(actor.getSnapshot().context).toEqual(state.context)
                record = records[step++]!
              },
            },
          })
          for (const effect of effects.filter((e) => e.startsWith("kill:"))) {
            for (const pid of effect.slice("kill:".length).split(",").map(Number)) {
              expect(createdAt.get(pid), `kill target ${pid}`).toBeGreaterThanOrEqual(input.startedAt)
            }
          }
          if (input.mode !== "kill") expect(effects.filter((e) => e.startsWith("kill:"))).toEqual([])
        } finally {
          actor.stop()
        }
      })
    }
  })
}
