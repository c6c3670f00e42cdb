/** "1 subtask", "3 subtasks", "1,000 tokens": a count with its noun, plural when it is not one. */
export function countOf(n: number, noun: string, plural = `${noun}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? noun : plural}`
}
