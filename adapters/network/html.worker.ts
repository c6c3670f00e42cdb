// The body of the HTML-to-markdown worker thread (html.convert.ts starts it): measures the page's nesting first, in
// linear time, then converts it. Bundled into one CommonJS script (html.worker.generated.ts, `npm run workers`), so it
// runs as an `eval` worker under Node and Bun alike.
import { parentPort, workerData } from "node:worker_threads"
import { nestingDepth } from "./html.depth"
import type { ConvertReply, ConvertRequest } from "./html.convert.protocol"
import { htmlToMarkdown } from "./html.markdown"

function convert({ html, baseUrl, maxDepth }: ConvertRequest): ConvertReply {
  const depth = nestingDepth(html, maxDepth)
  if (depth > maxDepth) return { kind: "too-deep" }
  try {
    return { kind: "converted", ...htmlToMarkdown(html, baseUrl) }
  } catch (error) {
    // The scan follows the parser closely, not exactly: a page it under-counted still ends here, not in a crash.
    if (error instanceof RangeError) return { kind: "too-deep" }
    return { kind: "failed", message: error instanceof Error ? error.message : String(error) }
  }
}

parentPort?.postMessage(convert(workerData as ConvertRequest))
