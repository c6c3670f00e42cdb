#!/usr/bin/env node
// `npm test`: every check and every test, in tiers that share the machine instead of waiting for each other. The
// static checks, the build and the unit tiers (pure, integration, then the process-tree tests) start at once; the
// end-to-end tier starts as soon as the build is done (its install scenarios load dist/) and runs beside them, since
// most of its time is spent waiting for opencode. Each line of output is prefixed with its tier. At the end: the wall
// time of each tier and the slowest end-to-end scenarios, so the next person sees where the time goes, then every failed
// test with the first lines of its error, read from vitest's JSON reports.
import { spawn } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const SLOWEST = 10

/** One command of a tier: an npm script (and its extra arguments). */
const npm = (script, ...args) => ({
  label: `npm run ${script}${args.length ? ` -- ${args.join(" ")}` : ""}`,
  argv: ["npm", "run", "-s", script, ...(args.length ? ["--", ...args] : [])],
})

/** Where each vitest command writes its JSON report, read at the end for the failures and the slowest scenarios. */
const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), "forge-test-"))
const reportFile = (projects) => path.join(reportDir, `${projects.join("+")}.json`)

/** `vitest run` of some of vitest.config.ts's projects, reporting to the terminal and to its JSON report. */
const vitest = (...projects) => {
  const args = ["vitest", "run", ...projects.flatMap((project) => ["--project", project])]
  const report = ["--reporter=default", "--reporter=json", `--outputFile.json=${reportFile(projects)}`]
  return { label: args.join(" "), argv: ["npx", "--no-install", ...args, ...report], report: reportFile(projects) }
}

/** The command at a lower CPU priority (where `nice` exists: not on Windows). */
const niced = (command) => (process.platform === "win32" ? command : { ...command, argv: ["nice", "-n", "10", ...command.argv] })

/** How many of a command's last output lines are kept, to be shown again when it fails. */
const TAIL_LINES = 30
// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal colour codes are what it removes
const ANSI = /\u001b\[[0-9;]*m/g

/** Runs a command with its output prefixed by its tier; resolves to its exit code and its last lines of output. */
function runCommand(tier, command) {
  return new Promise((resolve) => {
    const [bin, ...args] = command.argv
    const child = spawn(bin, args, { cwd: REPO, stdio: ["ignore", "pipe", "pipe"], env: process.env })
    const prefix = `[${tier}] `
    const tail = []
    const pipe = (stream, out) => {
      let pending = ""
      const write = (line) => {
        out.write(`${prefix}${line}\n`)
        tail.push(line.replace(ANSI, ""))
        if (tail.length > TAIL_LINES) tail.shift()
      }
      stream.setEncoding("utf8")
      stream.on("data", (chunk) => {
        pending += chunk
        const lines = pending.split("\n")
        pending = lines.pop() ?? ""
        for (const line of lines) write(line)
      })
      stream.on("end", () => pending && write(pending))
    }
    pipe(child.stdout, process.stdout)
    pipe(child.stderr, process.stderr)
    child.on("error", (err) => {
      process.stderr.write(`${prefix}${command.label}: ${err.message}\n`)
      resolve({ code: 127, tail: [err.message] })
    })
    child.on("close", (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), tail }))
  })
}

/** Runs a tier's commands one after the other; every one runs even when an earlier one failed. */
async function runTier(name, commands) {
  const started = Date.now()
  const failed = []
  const failures = []
  for (const command of commands) {
    const { code, tail } = await runCommand(name, command)
    if (code === 0) continue
    failed.push(command.label)
    failures.push({ label: command.label, code, tail, report: command.report })
  }
  const seconds = (Date.now() - started) / 1000
  console.log(`[${name}] ${failed.length === 0 ? "ok" : `FAILED: ${failed.join(", ")}`} in ${seconds.toFixed(1)} s`)
  return { name, seconds, failed, failures }
}

function readReport(reportFile) {
  try {
    return { report: JSON.parse(fs.readFileSync(reportFile, "utf8")) }
  } catch (err) {
    return { error: err.message }
  }
}

/** The slowest end-to-end tests of vitest's JSON report, slowest first. */
function slowestScenarios(reportFile) {
  const { report, error } = readReport(reportFile)
  if (!report) return [{ name: `(no e2e report: ${error})`, ms: 0, status: "" }]
  return report.testResults
    .flatMap((file) => file.assertionResults.map((t) => ({ name: `${path.basename(file.name)} > ${t.fullName}`, ms: t.duration ?? 0, status: t.status })))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, SLOWEST)
}

const FAILURE_LINES = 12

/**
 * Every failed test file and test of a command's JSON report, with the first lines of its error. Printed last: a CI
 * log is often read from its end only, and thousands of lines of passing tests stand between a failure and the summary.
 */
function failedTests(reportFile) {
  const lines = []
  const excerpt = (message) =>
    String(message ?? "")
      .split("\n")
      .filter((line) => line.trim() !== "" && !/^\s*at .*(node_modules|<anonymous>|node:internal)/.test(line))
      .slice(0, FAILURE_LINES)
      .map((line) => `      ${line}`)
  const { report } = readReport(reportFile)
  for (const result of report?.testResults ?? []) {
    const name = path.relative(REPO, result.name)
    const failed = result.assertionResults.filter((t) => t.status === "failed")
    if (result.status === "failed" && failed.length === 0) lines.push(`  ${name}`, ...excerpt(result.message || "(the file failed before any test ran)"))
    for (const t of failed) lines.push(`  ${name} > ${t.fullName}`, ...excerpt(t.failureMessages?.join("\n")))
  }
  return lines
}

/**
 * What each failed command says of its failure: its failed tests; or, where it names none (a check, a build, a run
 * whose teardown failed after every test passed), its last lines of output.
 */
function failureSummary(results) {
  const lines = []
  for (const { label, code, tail, report } of results.flatMap((r) => r.failures ?? [])) {
    const tests = report === undefined ? [] : failedTests(report)
    lines.push(`${label} (exit ${code})${tests.length > 0 ? ":" : ", with no failed test to name; its last lines:"}`)
    lines.push(...(tests.length > 0 ? tests : tail.map((line) => `    ${line}`)))
  }
  return lines
}

async function main() {
  const started = Date.now()
  const build = runTier("build", [npm("build")])
  const tiers = [
    runTier("static", [npm("typecheck"), npm("lint"), npm("lint:layers"), npm("lint:unused")]),
    build,
    // What `npm run test:unit` runs, in its order. Pure and integration tests niced: the end-to-end tier is a chain of
    // waits on opencode, the longest path, and they take what it leaves; the process-tree tests time real processes; the
    // hostile tests (every tool given hostile input) watch the event loop, so they run alone after them.
    runTier("unit", [niced(vitest("pure", "integration")), vitest("processes"), vitest("hostile")]),
    build.then((b) => (b.failed.length > 0 ? { name: "e2e", seconds: 0, failed: ["not run: the build failed"] } : runTier("e2e", [vitest("e2e")]))),
  ]
  const results = await Promise.all(tiers)
  const total = (Date.now() - started) / 1000
  console.log("\ntier       wall     result")
  for (const r of results)
    console.log(`${r.name.padEnd(10)} ${`${r.seconds.toFixed(1)} s`.padStart(8)}  ${r.failed.length === 0 ? "ok" : `FAILED (${r.failed.join(", ")})`}`)
  console.log(`${"total".padEnd(10)} ${`${total.toFixed(1)} s`.padStart(8)}`)
  console.log(`\nslowest ${SLOWEST} end-to-end tests:`)
  for (const t of slowestScenarios(reportFile(["e2e"])))
    console.log(`${`${(t.ms / 1000).toFixed(1)} s`.padStart(8)}  ${t.name}${t.status && t.status !== "passed" ? ` (${t.status})` : ""}`)
  const failed = failureSummary(results)
  if (failed.length > 0) console.log(`\nfailed:\n${failed.join("\n")}`)
  fs.rmSync(reportDir, { recursive: true, force: true })
  return results.some((r) => r.failed.length > 0) ? 1 : 0
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err)
    process.exit(2)
  },
)
