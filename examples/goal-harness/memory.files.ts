import type { DocumentFiles } from "forgecharts/services"

// A folder of documents in memory: the goal documents the service writes, with a change stamp per write so a
// compare-and-swap write can tell an edit made in between.

export class MemoryDocumentFiles implements DocumentFiles {
  private readonly files = new Map<string, { text: string; version: number; at: number }>()
  private version = 0

  async list(): Promise<string[]> {
    return [...this.files.keys()]
  }

  async read(path: string): Promise<string | undefined> {
    return this.files.get(path)?.text
  }

  stamp(path: string): string | undefined {
    const file = this.files.get(path)
    return file === undefined ? undefined : String(file.version)
  }

  modifiedAt(path: string): number | undefined {
    return this.files.get(path)?.at
  }

  async write(path: string, text: string, unchangedSince?: string): Promise<void> {
    if (unchangedSince !== undefined && this.stamp(path) !== unchangedSince) throw new Error(`${path} changed since it was read`)
    this.version += 1
    this.files.set(path, { text, version: this.version, at: Date.now() })
  }
}
