// The plan's two kinds of failure are the document kinds' shared ones (services/documents): a document that does not
// hold a valid plan, and a bad argument to one of the codec's operations. The plan names stay for plan code to read.

export { DocumentError as PlanDocumentError, DocumentInputError as PlanInputError } from "../documents/document.errors"
