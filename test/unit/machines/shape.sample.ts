import { fromPromise, setup } from "xstate"

// A machine using the parts of a config the current lifecycle machines do not (delays, invokes, done events, ids,
// parallel and history states, child and id targets), so the shape comparison is checked on them before a future
// machine needs them. Never run; only read.

export const shapeSampleMachine = setup({
  actors: { fetchThing: fromPromise(async () => 1) },
  guards: { isReady: () => true, isLate: () => false },
}).createMachine({
  id: "sample",
  initial: "idle",
  states: {
    idle: {
      on: { go: [{ guard: "isReady", target: "busy.loading" }, { target: ".waiting" }] },
      initial: "waiting",
      states: { waiting: { after: { 500: { target: "#sample.done" } } }, paused: {} },
    },
    busy: {
      id: "work",
      initial: "loading",
      onDone: { target: "done" },
      states: {
        loading: {
          invoke: { src: "fetchThing", onDone: { target: "ready" }, onError: [{ guard: "isLate", target: "#work.failed" }, { target: "failed" }] },
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
