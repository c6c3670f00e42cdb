import { CREW_DIR } from "../../services/crew/crew.paths"
import { FsDocumentFiles } from "./document.files"

/** The crew folder of a workspace on disk: the record files of `.opencode/crew/`. */
export class FsCrewFiles extends FsDocumentFiles {
  constructor(workspace: string) {
    super(workspace, { folder: CREW_DIR, kind: "crew" })
  }
}
