import { and, fromPromise, not, or, setup } from "xstate"

// A machine using the parts of a config the current lifecycle machines do not (delays, inline invokes, done events,
// ids, parallel and history states, child and id targets, guards combined inline with and/or/not, guard params), so
// the shape comparison is checked on them before a future machine needs them. Never run; only read.

export const shapeSampleMachine = setup({
  actors: { fetchThing: fromPromise(async () => 1), watchThing: fromPromise(async () => 2) },
  guards: { isReady: () => true, isLate: () => false, isAbove: (_, params: { n: number }) => params.n > 0 },
}).createMachine({
  id: "sample",
  initial: "idle",
  states: {
    idle: {
      on: {
        go: [{ guard: "isReady", target: "busy.loading" }, { target: ".waiting" }],
        check: [
          { guard: and(["isReady", not("isLate"), or(["isLate", { type: "isAbove", params: { n: 2 } }])]), target: "both" },
          { guard: { type: "isAbove", params: { n: 1 } }, target: ".paused" },
        ],
      },
      initial: "waiting",
      states: { waiting: { after: { 500: { target: "#sample.done" } } }, paused: {} },
    },
    busy: {
      id: "work",
      initial: "loading",
      onDone: { target: "done" },
      states: {
        loading: {
          invoke: [
            { src: "fetchThing", onDone: { target: "ready" }, onError: [{ guard: "isLate", target: "#work.failed" }, { target: "failed" }] },
            { id: "watcher", src: "watchThing" },
            { src: fromPromise(async () => 3) },
          ],
        },
        ready: { always: { target: "finished" } },
        failed: { type: "final" },
        finished: { type: "final" },
        back: { type: "history" },
      },
    },
    both: {
      type: "parallel",
      states: { left: { on: { tick: { target: "right" } } }, right: {} },
    },
    done: { type: "final" },
  },
})
