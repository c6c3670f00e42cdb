import { PLAN_DIR } from "../../services/plan/plan.paths"
import { FsDocumentFiles } from "./document.files"

/** The plan folder of a workspace on disk: the document files of `.opencode/plan/`. */
export class FsPlanFiles extends FsDocumentFiles {
  constructor(workspace: string) {
    super(workspace, { folder: PLAN_DIR, kind: "plan" })
  }
}
