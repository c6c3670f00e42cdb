import { type StateValue, and, assertEvent, assign, not, setup } from "xstate"
import { type WatchdogMode, isObservationOverAt, isStallDueAt, isWarnDueAt, withinCallWindow } from "./watchdog.gates"

// One builtin shell call of a forge-family session, watched for a stall. Warn at 80 % of the stall budget, act at
// the budget (kill, or record in dry-run), observe, try a second wave, and say "unresolved" honestly when nothing
// helps. Only processes created inside the call's window are ever targets. Effects are placeholder actions that
// each harness provides; their results come back as events.

export const WATCHDOG_MACHINE_VERSION = "1"

export interface WatchdogInput {
  callId: string
  sessionId: string
  command: string
  /** Epoch ms when the call started. */
  startedAt: number
  stallMs: number
  observeMs: number
  mode: WatchdogMode
}

export interface Candidate {
  pid: number
  /** Epoch ms the process was created. */
  startedAt: number
}

export interface WatchdogContext extends WatchdogInput {
  /** The call's process carried the marker the shell.env hook stamps: location is exact, not inferred. */
  markerSeen: boolean
  wave: 1 | 2
  candidates: number[]
  actedAt: number | null
  survivors: number[]
}

export type WatchdogEvent =
  | { type: "marker.seen" }
  | { type: "watchdog.tick"; now: number }
  | { type: "locate.done"; wave: 1 | 2; candidates: Candidate[] }
  | { type: "kill.done"; at: number; survivors: number[] }
  | { type: "call.end"; at: number }

export type WatchdogTag = "timing" | "locating" | "killing" | "acted"

export type LedgerKind = "warn" | "kill" | "dry-run" | "degraded" | "unresolved"

export const watchdogMachine = setup({
  types: {
    context: {} as WatchdogContext,
    events: {} as WatchdogEvent,
    input: {} as WatchdogInput,
    tags: {} as WatchdogTag,
  },
  guards: {
    isOff: ({ context }) => context.mode === "off",
    isDryRun: ({ context }) => context.mode === "dry-run",
    isWarnDue: ({ context: { startedAt, stallMs }, event }) => {
      assertEvent(event, "watchdog.tick")
      return isWarnDueAt({ now: event.now, startedAt, stallMs })
    },
    isStallDue: ({ context: { startedAt, stallMs }, event }) => {
      assertEvent(event, "watchdog.tick")
      return isStallDueAt({ now: event.now, startedAt, stallMs })
    },
    // Observed from the act (kill or listing); a watch that never acted counts from the call's start.
    isObservationOver: ({ context, event }) => {
      assertEvent(event, "watchdog.tick")
      return isObservationOverAt({ now: event.now, actedAt: context.actedAt ?? context.startedAt, observeMs: context.observeMs })
    },
    isMarkerSeen: ({ context }) => context.markerSeen,
    hasCandidates: ({ context, event }) => {
      assertEvent(event, "locate.done")
      return withinCallWindow(context.startedAt, event.candidates).length > 0
    },
    isFirstWave: ({ context }) => context.wave === 1,
    canKill: and(["isMarkerSeen", "hasCandidates", not("isDryRun")]),
    canRecordDryRun: and(["hasCandidates", "isDryRun"]),
    isSecondWaveDue: and(["isObservationOver", "isFirstWave"]),
  },
  actions: {
    noteMarker: assign({ markerSeen: true }),
    keepCandidates: assign({
      candidates: ({ context, event }) => {
        assertEvent(event, "locate.done")
        return withinCallWindow(context.startedAt, event.candidates)
      },
    }),
    startSecondWave: assign({ wave: 2 as const, candidates: [] }),
    recordKill: assign((_, { at, survivors }: { at: number; survivors: number[] }) => ({ actedAt: at, survivors })),
    stampAct: assign((_, { at }: { at: number }) => ({ actedAt: at })),
    // Placeholders: each harness supplies them (create<Name>Implementations, given to the lifecycle host); they run the world and report back with events.
    requestLocate: (_, _params: { wave: 1 | 2 }) => {
      throw new Error("watchdog action requestLocate not provided")
    },
    requestKill: (_, _params: { pids: number[] }) => {
      throw new Error("watchdog action requestKill not provided")
    },
    ledger: (_, _params: { kind: LedgerKind }) => {
      throw new Error("watchdog action ledger not provided")
    },
  },
}).createMachine({
  id: "watchdog",
  version: WATCHDOG_MACHINE_VERSION,
  context: ({ input }) => ({ ...input, markerSeen: false, wave: 1, candidates: [], actedAt: null, survivors: [] }),
  initial: "arming",
  states: {
    arming: {
      always: [{ guard: "isOff", target: "off" }, { target: "watching" }],
    },
    off: { type: "final" },
    // Every live state: the call can end, and the marker can show up, at any point until the watch is over.
    watching: {
      initial: "timing",
      on: {
        "marker.seen": { actions: "noteMarker" },
        "call.end": { target: "finished" },
      },
      states: {
        timing: {
          tags: ["timing"],
          on: { "watchdog.tick": { guard: "isWarnDue", target: "warned", actions: { type: "ledger", params: { kind: "warn" } } } },
        },
        warned: {
          tags: ["timing"],
          on: { "watchdog.tick": { guard: "isStallDue", target: "locating", actions: { type: "stampAct", params: ({ event }) => ({ at: event.now }) } } },
        },
        locating: {
          tags: ["locating"],
          entry: { type: "requestLocate", params: ({ context }) => ({ wave: context.wave }) },
          on: {
            "locate.done": [
              { guard: "canKill", target: "killing", actions: "keepCandidates" },
              { guard: "canRecordDryRun", target: "dryRun", actions: ["keepCandidates", { type: "ledger", params: { kind: "dry-run" } }] },
              // The marker never showed up: the hook did not fire, so any match is inference. Record, never kill.
              { guard: "hasCandidates", target: "dryRun", actions: ["keepCandidates", { type: "ledger", params: { kind: "degraded" } }] },
              { guard: "isFirstWave", target: "locating", reenter: true, actions: "startSecondWave" },
              { target: "unresolved", actions: { type: "ledger", params: { kind: "unresolved" } } },
            ],
          },
        },
        killing: {
          tags: ["killing"],
          entry: [
            { type: "requestKill", params: ({ context }) => ({ pids: context.candidates }) },
            { type: "ledger", params: { kind: "kill" } },
          ],
          on: { "kill.done": { target: "observing", actions: { type: "recordKill", params: ({ event }) => ({ at: event.at, survivors: event.survivors }) } } },
        },
        observing: {
          tags: ["acted"],
          on: {
            "watchdog.tick": [
              { guard: "isSecondWaveDue", target: "locating", actions: ["startSecondWave", { type: "stampAct", params: ({ event }) => ({ at: event.now }) }] },
              { guard: "isObservationOver", target: "unresolved", actions: { type: "ledger", params: { kind: "unresolved" } } },
            ],
          },
        },
        dryRun: {
          tags: ["acted"],
          on: {
            "watchdog.tick": { guard: "isObservationOver", target: "unresolved", actions: { type: "ledger", params: { kind: "unresolved" } } },
          },
        },
        unresolved: {},
      },
    },
    finished: { type: "final" },
  },
})

export type WatchdogMachine = typeof watchdogMachine

/** The watchdog's innermost state name ("timing", "killing", …, "off", "finished"), for logs and ledgers. */
export function watchdogPlaceOf(value: StateValue): string {
  if (typeof value === "string") return value
  const [key, child] = Object.entries(value)[0] ?? ["", undefined]
  return child === undefined ? key : watchdogPlaceOf(child as StateValue)
}
