import { fileFragment } from "../../adapters/opencode/file/file.fragment"
import { FILE_TOOL_IDS } from "../../machines/agent.partition"
import type { SurfaceModule } from "../forge.module"

/** The forge file tools: read, write, patch, remove, search, undo, rewind and fetch, with an undo journal. */
export const filesModule: SurfaceModule<"files"> = {
  kind: "surface",
  scope: "workspace",
  name: "files",
  toolIds: FILE_TOOL_IDS,
  commands: [],
  fragment: (context, files, start) => fileFragment(context, files, start.workspace),
  load: async () => (await import("./files.lazy")).filesParts,
}
