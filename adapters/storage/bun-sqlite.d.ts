// The part of Bun's built-in `bun:sqlite` module the storage adapter uses (kept local instead of @types/bun).
declare module "bun:sqlite" {
  type BunSqlValue = string | number | bigint | boolean | Uint8Array | null

  interface Statement {
    values(...params: BunSqlValue[]): Array<Array<string | number | bigint | Uint8Array | null>>
    run(...params: BunSqlValue[]): { changes: number; lastInsertRowid: number | bigint }
  }

  export class Database {
    constructor(filename: string, options?: { create?: boolean; readwrite?: boolean; strict?: boolean })
    /** Prepares (and caches) a statement. */
    query(sql: string): Statement
    /** Runs one or more statements without parameters. */
    exec(sql: string): void
    close(throwOnError?: boolean): void
  }
}
