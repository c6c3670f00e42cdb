import type { StorageTrouble } from "../../services/lifecycle/storage.trouble"

/** What the opencode adapter needs of the composed runtime (opened in src/runtime.ts): the workspace, whatever lifecycles it holds. */
export interface ForgeRuntime {
  readonly workspace: string
  /** Set when the workspace database could not be used: the runtime runs on an in-memory stand-in rebuilt from the documents. */
  readonly storageTrouble?: StorageTrouble
  close(): Promise<void>
}

/** Hands tools and hooks the runtime and the session their state is bound to (the root of a subagent tree). */
export interface ForgeRuntimeAccess {
  forTool(ctx: { sessionID: string }): Promise<{ runtime: ForgeRuntime; session: string }>
}
