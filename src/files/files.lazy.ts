import type { HostFilesHandle } from "../../adapters/opencode/file/file.handle"
import { createWebFetch } from "../../adapters/network/web.fetch"
import type { StorageConnection } from "../../adapters/storage/storage.connection"
import { sharedJournalStore } from "../../adapters/storage/journal.repository"
import { workerSearchScanner } from "../../adapters/process/search.scanner"
import { fsToolFiles } from "../../adapters/workspace/tool.files"
import { runSearch } from "../../services/files/search"
import { SEARCH_BOUNDS } from "../../services/files/search.tally"
import { ForgeFiles } from "../../services/files/forge.files"
import { FileJournal } from "../../services/files/journal"
import type { Clock } from "../../services/lifecycle/lifecycle.ports"
import type { SurfaceParts } from "../forge.module"

/** The forge file tools of one workspace: files on disk, their journal in the workspace database, the web. */
export function createHostFiles(options: { clock: Clock; connection: () => Promise<StorageConnection>; journalMaxMB: number }): HostFilesHandle {
  const journal = new FileJournal({ store: sharedJournalStore(options.connection), files: fsToolFiles, clock: options.clock })
  const journalLimitBytes = options.journalMaxMB * 1024 * 1024
  const scanner = workerSearchScanner()
  return {
    files: new ForgeFiles({ files: fsToolFiles, journal, journalLimitBytes }),
    web: createWebFetch(),
    search: (request) => runSearch(scanner, request, SEARCH_BOUNDS),
  }
}

/** The file tools' lazy part: no lifecycle, a journal in the workspace database. */
export const filesParts: SurfaceParts<"files"> = {
  create: (parts) => createHostFiles({ clock: parts.clock, connection: () => parts.database.connection(), journalMaxMB: parts.options.files.journalMaxMB }),
}
