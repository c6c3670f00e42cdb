// forge_search's scanner: the walk, the reads and the matching all run in a small pool of worker threads
// (search.worker.ts, scanning with search.walk.ts), never on opencode's event loop. The regex and the glob run on
// RE2, in time linear in the text; what is left to bound is the text's size, by one time limit per search. A limit
// that is hit is reported as undecided (the answer is an error naming it), never as "No matches".
import { availableParallelism } from "node:os"
import { Worker } from "node:worker_threads"
import type { ScanRequest, ScanResult, SearchScanner } from "../../services/files/search.ports"
import { MAX_SEARCH_FILE_BYTES } from "../workspace/search.files"
import type { WalkScanRequest } from "../workspace/search.walk"
import { SEARCH_WORKER_SOURCE } from "./search.worker.generated"

export interface SearchScannerOptions {
  /** Worker threads; each walks the tree and takes every n-th file. Default: the cores, at most 4. */
  workers?: number
  /** Time limit of one search (ms), walk, reads and matching together. */
  limitMs?: number
  maxFileBytes?: number
}

/** 20,000 files take a fraction of a second (bench/README.md); a minute is a tree far beyond any workspace's. */
const SEARCH_LIMIT_MS = 60_000
/** A worker past the limit by this much is stuck (a read that hangs): it is terminated and the search answered. */
const GRACE_MS = 5_000
const MAX_WORKERS = 4

interface Reply {
  id: number
  result?: ScanResult
  error?: string
}

/** One worker thread, kept between searches (started lazily, unref'd: it never keeps the host alive). */
class PooledWorker {
  private worker: Worker | undefined
  private nextId = 0
  private waiting = new Map<number, (reply: Reply | Error) => void>()

  run(request: WalkScanRequest, waitMs: number): Promise<Reply | Error | undefined> {
    const worker = this.started()
    const id = this.nextId++
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id)
        // Stuck past its own deadline (a read that blocks): the thread is dropped, a new one starts next time.
        this.stop()
        resolve(undefined)
      }, waitMs)
      this.waiting.set(id, (reply) => {
        clearTimeout(timer)
        resolve(reply)
      })
      worker.postMessage({ id, request })
    })
  }

  stop(): void {
    const worker = this.worker
    this.worker = undefined
    for (const resolve of this.waiting.values()) resolve(new Error("the search worker was stopped"))
    this.waiting.clear()
    // Not awaited: nobody needs to wait for a thread that is going away.
    worker?.terminate().catch(() => undefined)
  }

  private started(): Worker {
    if (this.worker) return this.worker
    const worker = new Worker(SEARCH_WORKER_SOURCE, { eval: true })
    worker.unref()
    worker.on("message", (reply: Reply) => {
      const resolve = this.waiting.get(reply.id)
      this.waiting.delete(reply.id)
      resolve?.(reply)
    })
    const fail = (error: Error): void => {
      if (this.worker !== worker) return
      this.worker = undefined
      for (const resolve of this.waiting.values()) resolve(error)
      this.waiting.clear()
    }
    worker.on("error", (error) => fail(new Error(`the search worker failed: ${error.message}`)))
    worker.on("exit", (code) => fail(new Error(`the search worker stopped (exit code ${code})`)))
    this.worker = worker
    return worker
  }
}

export function workerSearchScanner(options: SearchScannerOptions = {}): SearchScanner & { close(): void } {
  const count = Math.max(1, options.workers ?? Math.min(MAX_WORKERS, availableParallelism()))
  const limitMs = options.limitMs ?? SEARCH_LIMIT_MS
  const maxFileBytes = options.maxFileBytes ?? MAX_SEARCH_FILE_BYTES
  const pool = Array.from({ length: count }, () => new PooledWorker())
  // One search at a time per pool: the workers are the pool's cores, a second search would only halve each.
  let queue: Promise<unknown> = Promise.resolve()
  const limit = `the search's time limit of ${limitMs / 1000} s`

  const scanOnce = async (request: ScanRequest): Promise<ScanResult> => {
    const deadline = Date.now() + limitMs
    const replies = await Promise.all(
      pool.map((worker, index) =>
        worker.run(
          {
            root: request.root,
            filePattern: request.filePattern,
            regex: request.regex,
            maxShown: request.maxShown,
            maxLineChars: request.maxLineChars,
            maxFileBytes,
            share: { index, count },
            deadline,
            limit,
          },
          limitMs + GRACE_MS,
        ),
      ),
    )
    const merged: ScanResult = { searched: 0, files: [], skipped: [] }
    for (const reply of replies) {
      if (reply === undefined) {
        merged.undecided = { limit: `${limit} (a worker did not answer ${GRACE_MS / 1000} s past it)` }
        continue
      }
      if (reply instanceof Error) throw new Error(`forge_search: ${reply.message}`)
      if (reply.error !== undefined) throw new Error(reply.error)
      const result = reply.result as ScanResult
      merged.searched += result.searched
      merged.files.push(...result.files)
      merged.skipped.push(...result.skipped)
      if (result.undecided && merged.undecided?.files !== undefined) {
        merged.undecided.files = (merged.undecided.files ?? 0) + (result.undecided.files ?? 0)
        merged.undecided.lines = (merged.undecided.lines ?? 0) + (result.undecided.lines ?? 0)
      } else if (result.undecided && !merged.undecided) merged.undecided = { ...result.undecided }
    }
    return merged
  }

  return {
    scan(request) {
      const result = queue.then(() => scanOnce(request))
      queue = result.catch(() => undefined)
      return result
    },
    close() {
      for (const worker of pool) worker.stop()
    },
  }
}
