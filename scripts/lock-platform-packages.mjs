#!/usr/bin/env node
// Adds lock entries for opencode-ai's platform packages that this registry does not serve, so npm ci can
// validate the tree; npm skips them on this platform anyway (os/cpu mismatch), so they are never fetched.
import fs from "node:fs"
const file = process.argv[2] ?? "package-lock.json"
const lock = JSON.parse(fs.readFileSync(file, "utf8"))
const host = lock.packages["node_modules/opencode-ai"]
for (const [name, version] of Object.entries(host.optionalDependencies ?? {})) {
  const key = `node_modules/${name}`
  if (lock.packages[key]) continue
  const [, os, arch] = name.match(/^opencode-(darwin|linux|windows)-(arm64|x64)/) ?? []
  lock.packages[key] = { version, dev: true, optional: true, os: [os === "windows" ? "win32" : os], cpu: [arch] }
  if (name.includes("musl")) lock.packages[key].libc = ["musl"]
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))))
fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`)
