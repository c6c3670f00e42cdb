import { Worker } from "node:worker_threads"
import type { LineHit, LineMatcher, LineMatcherFactory, LinesMatched } from "../../services/files/search.ports"

// forge_search's regex runs in a worker thread, one file's lines per call, each call within a time budget: a regex
// that backtracks catastrophically costs a terminated worker and a stopped search, never a frozen host.

/** Budget of one file's lines (ms): a plain regex takes microseconds per line; a busy 2-core host must not trip it. */
const FILE_BUDGET_MS = 5_000
/**
 * Budget of the whole search's matching (ms): files each just under their budget would otherwise add up to hours.
 * 20,000 files take about a second of it (bench/README.md).
 */
const SEARCH_BUDGET_MS = 60_000
/** A worker that does not even come up in this time is broken, not slow at matching. */
const STARTUP_MS = 10_000

// Inline CommonJS source: works as an `eval` worker under Node and Bun, and survives bundling into one file.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const re = new RegExp(workerData.source, workerData.flags);
parentPort.on("message", (message) => {
  const hits = [];
  for (let i = 0; i < message.lines.length; i++) {
    const found = re.exec(message.lines[i]);
    if (found) hits.push({ line: i, index: found.index });
  }
  parentPort.postMessage({ id: message.id, hits });
});
parentPort.postMessage({ ready: true });
`

interface WorkerReply {
  id?: number
  ready?: boolean
  hits?: LineHit[]
}

export function workerLineMatcher(options: { fileBudgetMs?: number; searchBudgetMs?: number } = {}): LineMatcherFactory {
  const fileBudgetMs = options.fileBudgetMs ?? FILE_BUDGET_MS
  const searchBudgetMs = options.searchBudgetMs ?? SEARCH_BUDGET_MS
  return ({ source, flags }): LineMatcher => {
    /** Time spent waiting for the worker's answers, this search. */
    let spentMs = 0
    // Each line is tested alone: a g or y flag would carry lastIndex from one line to the next.
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { source, flags: flags.replace(/[gy]/g, "") } })
    // A matcher must never keep the host alive.
    worker.unref()
    let closed = false
    let nextId = 0
    let waiting: ((reply: WorkerReply | Error) => void) | undefined
    const ready = new Promise<void>((resolve, reject) => {
      worker.once("error", reject)
      worker.on("message", (reply: WorkerReply) => {
        if (reply.ready) resolve()
        else waiting?.(reply)
      })
    })
    worker.on("error", (error) => waiting?.(error))
    const within = <T>(promise: Promise<T>, ms: number): Promise<T | undefined> => {
      let timer: ReturnType<typeof setTimeout> | undefined
      const late = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), ms)
      })
      return Promise.race([promise, late]).finally(() => clearTimeout(timer))
    }
    const close = () => {
      if (closed) return
      closed = true
      // Not awaited: under Bun, interrupting a running regex takes a few hundred ms, and nobody needs to wait for it.
      worker.terminate().catch(() => undefined)
    }
    return {
      async match(lines): Promise<LinesMatched> {
        if (closed) throw new Error("forge_search: the regex matcher is closed")
        if (
          (await within(
            ready.then(() => true),
            STARTUP_MS,
          )) !== true
        ) {
          close()
          throw new Error(`forge_search: the regex matcher did not start within ${STARTUP_MS / 1000} s`)
        }
        const id = nextId++
        const reply = new Promise<WorkerReply | Error>((resolve) => {
          waiting = (r) => {
            if (r instanceof Error || r.id === id) resolve(r)
          }
        })
        const left = searchBudgetMs - spentMs
        const scope = left < fileBudgetMs ? "search" : "file"
        const started = performance.now()
        worker.postMessage({ id, lines })
        const answered = await within(reply, Math.max(0, Math.min(fileBudgetMs, left)))
        spentMs += performance.now() - started
        waiting = undefined
        if (answered === undefined) {
          close()
          return { status: "timed-out", budgetMs: scope === "file" ? fileBudgetMs : searchBudgetMs, scope }
        }
        if (answered instanceof Error) throw new Error(`forge_search: the regex matcher failed: ${answered.message}`)
        return { status: "matched", hits: answered.hits ?? [] }
      },
      close,
    }
  }
}
