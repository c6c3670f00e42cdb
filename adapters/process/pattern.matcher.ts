// success_pattern matching that can never freeze the host: the regex runs in a worker thread, fed with new output
// chunks, and every match call has a time budget. A pattern that backtracks catastrophically costs one terminated
// worker and a "timed-out" verdict, never a blocked event loop.
import { Worker } from "node:worker_threads"

export type MatchResult =
  | { status: "matched"; match: string }
  | { status: "no-match" }
  /** The budget ran out: the worker was terminated and the matcher stays disabled. */
  | { status: "timed-out" }

export interface PatternMatcherOptions {
  /** Time budget of one match call (ms). */
  budgetMs?: number
  /** Characters of earlier output kept in front of the next chunk, so a match across chunks is found. */
  overlapChars?: number
  /** RegExp flags; "m" by default so ^ and $ match at line boundaries of the output. g and y are ignored. */
  flags?: string
}

export type PatternMatcherState = "ready" | "timed-out" | "closed"

export interface PatternMatcher {
  readonly pattern: string
  /** Time budget of one match call (ms). */
  readonly budgetMs: number
  readonly state: PatternMatcherState
  /** Matches the new output (with the kept overlap in front). Calls run one after another. */
  feed(chunk: string): Promise<MatchResult>
  /** Terminates the worker; later feeds are refused. */
  close(): void
}

const DEFAULT_BUDGET_MS = 250
const MAX_OVERLAP_CHARS = 4096
// A worker that does not even come up in this time is broken, not slow at matching.
const STARTUP_MS = 10_000
const MAX_REPORTED_MATCH = 1000

// Inline CommonJS source: works as an `eval` worker under Node and Bun, and survives bundling into one file.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const re = new RegExp(workerData.source, workerData.flags);
const overlap = workerData.overlap;
let tail = "";
function keep(text, from) {
  if (overlap === 0) return "";
  const start = Math.max(from, text.length - overlap);
  if (start === 0 || text[start - 1] === "\\n") return text.slice(start);
  // Start the kept text at a line start when there is one, so ^ never matches in the middle of a line.
  const newline = text.indexOf("\\n", start);
  return newline >= 0 ? text.slice(newline + 1) : text.slice(start);
}
parentPort.on("message", (message) => {
  const text = tail + message.chunk;
  re.lastIndex = 0;
  const found = re.exec(text);
  if (found) {
    tail = keep(text, found.index + found[0].length);
    parentPort.postMessage({ id: message.id, match: found[0].slice(0, ${MAX_REPORTED_MATCH}) });
  } else {
    tail = keep(text, 0);
    parentPort.postMessage({ id: message.id, match: null });
  }
});
parentPort.postMessage({ ready: true });
`

function normalizeFlags(flags: string): string {
  return [...new Set(flags.replace(/[gy]/g, ""))].join("")
}

/** Compiles the pattern, or throws an error naming it and saying what is wrong. */
export function compilePattern(pattern: string, flags = "m"): RegExp {
  try {
    return new RegExp(pattern, normalizeFlags(flags))
  } catch (error) {
    throw new Error(`success_pattern ${JSON.stringify(pattern)} is not a valid regular expression: ${(error as Error).message}`)
  }
}

interface WorkerReply {
  id?: number
  ready?: boolean
  match?: string | null
}

/** A matcher for `pattern`; throws at once when the pattern is not a valid regular expression. */
export function createPatternMatcher(pattern: string, options: PatternMatcherOptions = {}): PatternMatcher {
  const regex = compilePattern(pattern, options.flags ?? "m")
  const budgetMs = options.budgetMs ?? DEFAULT_BUDGET_MS
  const overlap = Math.max(0, Math.min(options.overlapChars ?? MAX_OVERLAP_CHARS, MAX_OVERLAP_CHARS))

  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { source: regex.source, flags: regex.flags, overlap },
  })
  // A matcher must never keep the host alive.
  worker.unref()

  let state: PatternMatcherState = "ready"
  let failure: Error | undefined
  let nextId = 0
  let pending: { id: number; resolve: (reply: WorkerReply) => void; reject: (error: Error) => void } | undefined
  let markReady: () => void = () => undefined
  const ready = new Promise<void>((resolve) => {
    markReady = resolve
  })

  const fail = (error: Error): void => {
    failure ??= error
    pending?.reject(failure)
    pending = undefined
  }
  worker.on("message", (reply: WorkerReply) => {
    if (reply.ready) markReady()
    else if (pending && reply.id === pending.id) {
      const { resolve } = pending
      pending = undefined
      resolve(reply)
    }
  })
  worker.on("error", (error) => fail(new Error(`the matcher of ${JSON.stringify(pattern)} failed: ${error.message}`)))
  worker.on("exit", () => {
    if (state === "ready") fail(new Error(`the matcher of ${JSON.stringify(pattern)} stopped unexpectedly`))
  })

  const disable = (next: PatternMatcherState): void => {
    if (state !== "ready") return
    state = next
    // Not awaited: under Bun, interrupting a running regex takes a few hundred ms, and nobody needs to wait for it.
    worker.terminate().catch(() => undefined)
  }

  const withTimeout = <T>(promise: Promise<T>, ms: number, onTimeout: () => T): Promise<T> => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<T>((resolve) => {
      timer = setTimeout(() => resolve(onTimeout()), ms)
    })
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
  }

  const matchOnce = async (chunk: string): Promise<MatchResult> => {
    if (state === "timed-out") return { status: "timed-out" }
    if (state === "closed") throw new Error(`the matcher of ${JSON.stringify(pattern)} is closed`)
    if (failure) throw failure
    const started = await withTimeout(
      ready.then(() => true),
      STARTUP_MS,
      () => false,
    )
    if (!started) {
      const error = new Error(`the matcher of ${JSON.stringify(pattern)} did not start within ${STARTUP_MS} ms`)
      fail(error)
      disable("closed")
      throw error
    }
    if (failure) throw failure
    const id = nextId++
    const reply = new Promise<WorkerReply | undefined>((resolve, reject) => {
      pending = { id, resolve, reject }
    })
    worker.postMessage({ id, chunk })
    const answered = await withTimeout(reply, budgetMs, () => undefined)
    if (!answered) {
      pending = undefined
      disable("timed-out")
      return { status: "timed-out" }
    }
    return typeof answered.match === "string" ? { status: "matched", match: answered.match } : { status: "no-match" }
  }

  let queue: Promise<unknown> = Promise.resolve()
  return {
    pattern,
    budgetMs,
    get state() {
      return state
    },
    feed(chunk) {
      const result = queue.then(() => matchOnce(chunk))
      queue = result.catch(() => undefined)
      return result
    },
    close() {
      disable("closed")
    },
  }
}
