// Where a text may be cut for a window or an excerpt. JavaScript strings count UTF-16 code units, so a cut at a
// bare index can split an emoji's surrogate pair and hand the model a broken character at each end of the window.

/** `index`, moved back one code unit when it would fall between the two halves of a surrogate pair. */
export function cutIndex(text: string, index: number): number {
  if (index <= 0 || index >= text.length) return Math.max(0, Math.min(index, text.length))
  const before = text.charCodeAt(index - 1)
  const after = text.charCodeAt(index)
  const splitsPair = before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff
  return splitsPair ? index - 1 : index
}
