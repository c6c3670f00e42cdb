import os from "node:os"

// What every bench prints and takes alike: the machine it ran on, and how many rounds to run.

/** The machine a bench ran on, for its header: node, CPUs and the load when it started (figures are only as good as the machine). */
export function machineLine(): string {
  const cpus = os.cpus()
  return `node ${process.version}, ${cpus.length} × ${cpus[0]?.model ?? "unknown cpu"}, load ${os.loadavg()[0]?.toFixed(1)}`
}

/** `--rounds N` from the command line (a whole number from 1), or `fallback` when it is not given. */
export function roundsArg(argv: readonly string[], fallback: number): number {
  const i = argv.indexOf("--rounds")
  if (i < 0) return fallback
  const n = Number(argv[i + 1])
  if (!Number.isInteger(n) || n < 1) throw new Error(`--rounds needs a whole number ≥ 1, got ${JSON.stringify(argv[i + 1])}`)
  return n
}
