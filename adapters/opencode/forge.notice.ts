// Forge's notices in the transcript. A lifecycle that prompts a session on its own (a goal's continuation brief, a
// loop's pass brief, a job's wake) or tells the user how it ended writes one user-role message: opencode 1.18.33 lets
// a plugin write nothing else into a session. The text for the model is `synthetic` (sent, never shown); beside it, a
// notice for the user is `ignored` (shown, never sent) and marked as Forge's, so the transcript keeps a record of who
// started the turn and why, and no reader takes the message for one the user wrote. Toasts are not used for these:
// they cover the transcript, race each other and keep no record.

/** The mark a notice part carries in its metadata: the part is Forge's words to the user. */
const NOTICE_MARK = "notice"

/** A text part for session.promptAsync. */
export interface NoticeTextPart {
  type: "text"
  text: string
  synthetic?: boolean
  ignored?: boolean
  metadata?: { forge: string }
}

/** A `[forge:kind]` tag at the start of a line of text meant for the model. */
const TAGGED_LINE = /^\[forge:[^\]]*\]\s*/

/**
 * The parts of a message Forge writes into a session: `model`, read by the model only, and its notice, shown to the
 * user only. `whole`: the notice shows every line (an ending); otherwise each tagged line (a brief and the wakes it
 * carries), the tag replaced by "Forge ·".
 */
export function noticeParts(model: string, whole = false): NoticeTextPart[] {
  return [
    { type: "text", text: model, synthetic: true },
    { type: "text", text: noticeText(model, whole), ignored: true, metadata: { forge: NOTICE_MARK } },
  ]
}

export function noticeText(model: string, whole = false): string {
  const lines = model.split("\n")
  const shown = whole ? lines : lines.filter((line, i) => i === 0 || TAGGED_LINE.test(line))
  return shown.map((line) => (TAGGED_LINE.test(line) ? `Forge · ${line.replace(TAGGED_LINE, "")}` : line)).join("\n")
}

/** Whether a stored message part is a Forge notice (not the user's words). */
export function isNoticePart(part: Record<string, unknown>): boolean {
  const metadata = part.metadata
  return (
    part.type === "text" &&
    part.ignored === true &&
    metadata !== null &&
    typeof metadata === "object" &&
    (metadata as Record<string, unknown>).forge === NOTICE_MARK
  )
}
