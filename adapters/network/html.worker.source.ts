// The HTML-to-markdown worker's code as one script. A build (scripts/build.mjs) bundles html.worker.ts and puts the
// text here in place of FORGE_HTML_WORKER_SOURCE, so dist/ carries it inside its own files (forgecharts.js alone
// included); running from source (tests, a checkout loaded by opencode), it is bundled on first use, with esbuild.
import { fileURLToPath } from "node:url"

declare const FORGE_HTML_WORKER_SOURCE: string | undefined

let bundled: Promise<string> | undefined

export function htmlWorkerSource(): Promise<string> {
  if (typeof FORGE_HTML_WORKER_SOURCE === "string") return Promise.resolve(FORGE_HTML_WORKER_SOURCE)
  bundled ??= bundleFromSource().catch((error: unknown) => {
    bundled = undefined
    throw error
  })
  return bundled
}

async function bundleFromSource(): Promise<string> {
  const { build } = await import("esbuild")
  const entry = fileURLToPath(new URL("./html.worker.ts", import.meta.url))
  const result = await build({ entryPoints: [entry], bundle: true, platform: "node", format: "cjs", target: "node20", write: false, logLevel: "silent" })
  const [output] = result.outputFiles
  if (output === undefined) throw new Error(`esbuild produced no code for ${entry}`)
  return output.text
}
