import { statSync } from "node:fs"
import { InspectorFeed } from "../adapters/inspector/inspector.feed"
import { startInspectorServer } from "../adapters/inspector/inspector.server"
import { machineDiagram } from "../visualizations/inspector.diagrams"
import { inspectorPage } from "../visualizations/inspector.page"
import { detailOf } from "./cli.status"

// `forgecharts inspect [workspace] [--port N]`: the live inspector, a page on 127.0.0.1 that follows the workspace's
// database (any opencode process writing it, or none) until the command is stopped.

export interface InspectorRun {
  url: string
  /** Where the plugin's `inspect` option sends live snapshots to this page. */
  inspectUrl: string
  workspace: string
  database: string
  /** Resolves once a signal stopped the inspector and everything it held is closed. */
  stopped: Promise<void>
}

/** Starts the inspector: a usage error for a bad port, else the running page. */
export async function startInspector(workspace: string, port: string | undefined): Promise<InspectorRun | { error: string }> {
  if (!statSync(workspace, { throwIfNoEntry: false })?.isDirectory()) return { error: `no folder ${workspace}: give the workspace to inspect` }
  const portNumber = port === undefined ? 0 : Number(port)
  if (!Number.isInteger(portNumber) || portNumber < 0 || portNumber > 65_535)
    return { error: `--port ${JSON.stringify(port)} is not a port: give 0-65535 (0 for a free one)` }
  const feed = new InspectorFeed({ workspace, detail: detailOf })
  await feed.start()
  const server = await startInspectorServer({
    workspace,
    feed,
    port: portNumber,
    pages: { page: (initial, nonce) => inspectorPage(workspace, initial, nonce), diagram: machineDiagram },
  }).catch(async (error: unknown) => {
    await feed.stop()
    throw error
  })
  const stopped = new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop)
      process.off("SIGTERM", stop)
      void server
        .close()
        .then(() => feed.stop())
        .then(resolve)
    }
    process.on("SIGINT", stop)
    process.on("SIGTERM", stop)
  })
  return { url: server.url, inspectUrl: server.inspectUrl, workspace, database: feed.database, stopped }
}
