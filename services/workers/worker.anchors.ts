import path from "node:path"

// The directories this host was initialized with. A shared opencode host re-initializes the plugin once per project
// directory; pools resolve from every anchor so far, so an anchor flip can only add pools, never take one away. The
// first anchor is the primary one: its root pool keeps plain forge-<id> ids.

export class WorkerAnchors {
  readonly #anchors: string[] = []

  constructor(initial: Iterable<string> = []) {
    for (const dir of initial) this.add(dir)
  }

  /** Appends `dir` (normalized: `/a/b/` and `/a/./b` are `/a/b`) unless it is already an anchor; true when it was new. */
  add(dir: string): boolean {
    const normalized = withoutTrailingSeparator(path.normalize(dir))
    if (this.#anchors.includes(normalized)) return false
    this.#anchors.push(normalized)
    return true
  }

  /** Every anchor in the order they came, the primary first. */
  list(): readonly string[] {
    return [...this.#anchors]
  }

  get primary(): string | undefined {
    return this.#anchors[0]
  }
}

function withoutTrailingSeparator(dir: string): string {
  return dir.length > 1 && dir.endsWith(path.sep) && path.dirname(dir) !== dir ? dir.slice(0, -1) : dir
}
