// A named ledger on a LedgerStore: its entries are checked against the ledger's zod schema when appended (a bad
// entry is refused, naming the field) and when read (a damaged row is reported and left out, the rest still read).
import * as z from "zod"
import type { LedgerQuery, LedgerStore } from "./ledger.ports"

/** What makes a named ledger: its name, its entry schema, its bound, and the fields a query filters on. */
export interface LedgerDefinition<E> {
  /** The ledger's name in the store, e.g. "job". */
  name: string
  /** How errors name it, e.g. "job ledger". */
  title: string
  schema: z.ZodType<E>
  /** How many entries are kept: the oldest rotate out. */
  keep: number
  /** The indexed fields of an entry. */
  indexOf(entry: E): { kind: string; sessionId: string | null; subject: string | null; at: number }
}

export type LedgerFilter = Omit<LedgerQuery, "ledger" | "onDamaged">

export interface LedgerReadout<E> {
  /** Oldest first. */
  entries: E[]
  /** One line per row left out, naming the row and what is wrong with it. */
  problems: string[]
}

export class Ledger<E> {
  constructor(
    private readonly store: LedgerStore,
    readonly definition: LedgerDefinition<E>,
  ) {}

  /** The entry as its schema reads it, or an error naming the offending field and `where` it was found. */
  parse(value: unknown, where: string): E {
    const parsed = this.definition.schema.safeParse(value)
    if (!parsed.success) throw new Error(`invalid ${this.definition.title} entry (${where}):\n${z.prettifyError(parsed.error)}`)
    return parsed.data
  }

  /** Validates and appends one entry; the oldest beyond the bound rotate out. */
  async append(entry: E): Promise<void> {
    const valid = this.parse(entry, "append")
    await this.store.append({ ledger: this.definition.name, ...this.definition.indexOf(valid), entry: valid }, this.definition.keep)
  }

  /** The kept entries matching `filter`, oldest first; a row that does not read is reported, never thrown. */
  async query(filter: LedgerFilter = {}): Promise<LedgerReadout<E>> {
    const problems: { id: number; problem: string }[] = []
    const rows = await this.store.query({ ...filter, ledger: this.definition.name, onDamaged: (damage) => problems.push(damage) })
    const entries: E[] = []
    for (const row of rows) {
      const parsed = this.definition.schema.safeParse(row.entry)
      if (parsed.success) entries.push(parsed.data)
      else problems.push({ id: row.id, problem: `${this.definition.title} row ${row.id}: ${z.prettifyError(parsed.error)}` })
    }
    return { entries, problems: problems.sort((a, b) => a.id - b.id).map((damage) => damage.problem) }
  }
}
