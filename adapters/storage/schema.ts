// The whole drizzle schema. Each table group lives in its own file under tables/ (drizzle-kit reads that folder);
// add a group there and re-export it here.
export * from "./tables/lifecycle.tables"
export * from "./tables/keyvalue.tables"
export * from "./tables/ledger.tables"
export * from "./tables/journal.tables"
export * from "./tables/driver.claims.tables"
export * from "./tables/review.tables"
