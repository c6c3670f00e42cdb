// Another process's write, as the gate sees it: a second SQLite connection on the workspace database commits a new
// revision of one live plan's row (its snapshot unchanged) before each timed call, so the gate's process must notice
// (PRAGMA data_version), read the rows changed and take the newer record in before it decides.

import { type LifecycleStore, openLifecycleStore } from "../adapters/storage/lifecycle.store"

export interface ForeignWriter {
  /** Commits one foreign revision of the `index`-th live plan row (round robin). */
  write(index: number): Promise<void>
  close(): Promise<void>
}

export async function openForeignWriter(workspace: string): Promise<ForeignWriter> {
  const store: LifecycleStore = await openLifecycleStore(workspace)
  const { driver } = store.connection
  const rows = await driver.all("SELECT instance_id FROM actors WHERE machine_id = 'plan' AND terminal = 0 ORDER BY instance_id")
  const live = rows.map(([id]) => String(id))
  if (live.length === 0) throw new Error("the foreign writer found no live plan row to write")
  return {
    async write(index) {
      await driver.run("UPDATE actors SET revision = revision + 1, seq = (SELECT MAX(seq) + 1 FROM actors) WHERE machine_id = 'plan' AND instance_id = ?", [
        live[index % live.length] as string,
      ])
    },
    close: () => store.close(),
  }
}
