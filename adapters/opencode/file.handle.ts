import type { WebFetch } from "../../services/files/fetch.ports"
import type { ForgeFiles } from "../../services/files/forge.files"

/** The forge file tools' services as the plugin's tools see them (built in src/files.ts, loaded on first use). */
export interface HostFilesHandle {
  files: ForgeFiles
  web: WebFetch
}
