// The lifecycle repository contract on Node with the `sqlite3` driver.
import { describe, it } from "vitest"
import { openNodeSqlite3Driver } from "../../../adapters/storage/node-sqlite3.driver"
import { defineLifecycleRepositoryContract } from "./lifecycle-repository.contract"

describe("lifecycle repository on sqlite3 (Node)", () => {
  defineLifecycleRepositoryContract({ test: (name, body) => it(name, body) }, { driverName: "sqlite3", openDriver: openNodeSqlite3Driver })
})
