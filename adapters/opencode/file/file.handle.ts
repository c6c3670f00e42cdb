import type { WebFetch } from "../../../services/files/fetch.ports"
import type { ForgeFiles } from "../../../services/files/forge.files"
import type { SearchAnswer, SearchRequest } from "../../../services/files/search"

/** The forge file tools' services as the plugin's tools see them (built in src/files/files.lazy.ts, loaded on first use). */
export interface HostFilesHandle {
  files: ForgeFiles
  web: WebFetch
  /** forge_search over the file system (.gitignore honoured), its regex off the event loop. */
  search(request: SearchRequest): Promise<SearchAnswer>
}
