// A ledger store held in memory: for a harness without a database, and the reference behaviour of the bound.
import type { LedgerQuery, LedgerRow, LedgerStore, StoredLedgerRow } from "./ledger.ports"

export class MemoryLedgerStore implements LedgerStore {
  private readonly rows: StoredLedgerRow[] = []
  private nextId = 1

  async append(row: LedgerRow, keep: number): Promise<void> {
    // A copy: what the caller changes afterwards is not what was recorded.
    this.rows.push({ ...row, entry: structuredClone(row.entry), id: this.nextId++ })
    const ofLedger = this.rows.filter((stored) => stored.ledger === row.ledger)
    const excess = new Set(ofLedger.slice(0, Math.max(0, ofLedger.length - keep)))
    if (excess.size > 0) this.rows.splice(0, this.rows.length, ...this.rows.filter((stored) => !excess.has(stored)))
  }

  async query(query: LedgerQuery): Promise<StoredLedgerRow[]> {
    return this.rows.filter((row) => matches(row, query)).map((row) => ({ ...row, entry: structuredClone(row.entry) }))
  }
}

/** Whether a row passes every filter a query gives (the SQLite store asks the same in SQL). */
function matches(row: StoredLedgerRow, query: LedgerQuery): boolean {
  return (
    row.ledger === query.ledger &&
    (query.kind === undefined || row.kind === query.kind) &&
    (query.sessionId === undefined || row.sessionId === query.sessionId) &&
    (query.subject === undefined || row.subject === query.subject) &&
    (query.since === undefined || row.at >= query.since) &&
    (query.until === undefined || row.at <= query.until)
  )
}
