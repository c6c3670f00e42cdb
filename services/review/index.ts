// Public surface of the review findings' requests, and the scope another lifecycle keeps findings in.
export { normalFile, type ReviewDeleteRequest, type ReviewReadRequest, type ReviewScope, type ReviewWriteRequest } from "./review.scope"
