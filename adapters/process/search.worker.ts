// The body of one forge_search worker thread (bundled with its dependencies into search.worker.generated.ts by
// scripts/embed-workers.ts, so it runs as an `eval` worker under Node and Bun and survives bundling into one
// file). It answers scan requests one at a time, for as long as the pool keeps it.
import { parentPort } from "node:worker_threads"
import { type WalkScanRequest, scanTree } from "../workspace/search.walk"

parentPort?.on("message", (message: { id: number; request: WalkScanRequest }) => {
  try {
    parentPort?.postMessage({ id: message.id, result: scanTree(message.request) })
  } catch (error) {
    parentPort?.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) })
  }
})
