import path from "node:path"
import { type KeyValueStorage, createKeyValueStorage } from "../adapters/storage/keyvalue.storage"
import { databasePath } from "../adapters/storage/database.path"
import type { LifecycleStore } from "../adapters/storage/lifecycle.store"
import type { StorageConnection } from "../adapters/storage/storage.connection"
import { openStandIn, openWorkspaceStore } from "../adapters/storage/workspace.store"
import { ignoreForgeFolder } from "../adapters/workspace/forge.folder"
import type { Clock, LifecycleRepository, Logger } from "../services/lifecycle/lifecycle.ports"
import type { StorageTrouble } from "../services/lifecycle/storage.trouble"
import { moveAsideRemedy } from "../services/lifecycle/storage.trouble"

// The one opener of a workspace's Forge database. Every lifecycle (its records, the job registry, the ledgers) asks
// it; the file is opened once, on first use, and a database Forge cannot use is replaced by the in-memory stand-in.

export interface OpenDatabase {
  store: LifecycleStore
  keyValue: KeyValueStorage
  /** Set when the file could not be used and `store` is the in-memory stand-in. */
  trouble?: StorageTrouble
}

export class WorkspaceDatabase {
  readonly file: string
  /** The database is in the workspace's own Forge folder (not a file given explicitly): that folder is Forge's. */
  private readonly inForgeFolder: boolean
  private opening: Promise<OpenDatabase> | undefined
  private closed = false

  constructor(
    workspace: string,
    private readonly log: Logger,
    private readonly clock: Clock,
    databaseFile?: string,
  ) {
    this.file = databaseFile !== undefined ? path.resolve(databaseFile) : databasePath(workspace)
    this.inForgeFolder = databaseFile === undefined
  }

  /** Opens the database once (later calls share the first); it never rejects for a file Forge cannot use. */
  open(): Promise<OpenDatabase> {
    if (this.closed) return Promise.reject(new Error(`the Forge database ${this.file} was closed`))
    this.opening ??= openWorkspaceStore(this.file, this.log)
      .then(async ({ store, trouble }) => {
        if (this.inForgeFolder && trouble === undefined) {
          await ignoreForgeFolder(path.dirname(this.file)).catch((error: unknown) =>
            this.log.warn(`Forge could not write ${path.join(path.dirname(this.file), ".gitignore")} (git may list its database): ${String(error)}`),
          )
        }
        return this.opened(store, trouble)
      })
      .catch((error: unknown) => {
        this.opening = undefined
        throw error
      })
    return this.opening
  }

  /**
   * Gives up the file for the stand-in after it opened but could not be restored from: the same fallback as a file
   * that cannot be opened. Resolves to the stand-in.
   */
  async fallBack(problem: string, remedy = moveAsideRemedy(this.file)): Promise<OpenDatabase> {
    const current = await this.opening?.catch(() => undefined)
    await current?.store.close().catch(() => undefined)
    const standIn = await openStandIn({ file: this.file, problem, remedy }, this.log)
    const opened = this.opened(standIn.store, standIn.trouble)
    this.opening = Promise.resolve(opened)
    return opened
  }

  async repository(): Promise<LifecycleRepository | undefined> {
    return (await this.open().catch(() => undefined))?.store.repository
  }

  async keyValue(): Promise<KeyValueStorage> {
    return (await this.open()).keyValue
  }

  async connection(): Promise<StorageConnection> {
    return (await this.open()).store.connection
  }

  /** Closes the database if it was opened; nothing opens it afterwards. */
  async close(): Promise<void> {
    this.closed = true
    const open = await this.opening?.catch(() => undefined)
    this.opening = undefined
    await open?.store.close()
  }

  private opened(store: LifecycleStore, trouble: StorageTrouble | undefined): OpenDatabase {
    return { store, trouble, keyValue: createKeyValueStorage(store.connection, this.clock.now) }
  }
}
