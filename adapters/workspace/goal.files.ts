import { GOAL_DIR } from "../../services/goal/goal.paths"
import { FsDocumentFiles } from "./document.files"

/** The goal folder of a workspace on disk: the document files of `.opencode/goal/`. */
export class FsGoalFiles extends FsDocumentFiles {
  constructor(workspace: string) {
    super(workspace, { folder: GOAL_DIR, kind: "goal" })
  }
}
