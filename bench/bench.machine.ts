import os from "node:os"

/** The machine a bench ran on, for its header: node, CPUs and the load when it started (figures are only as good as the machine). */
export function machineLine(): string {
  const cpus = os.cpus()
  return `node ${process.version}, ${cpus.length} × ${cpus[0]?.model ?? "unknown cpu"}, load ${os.loadavg()[0]?.toFixed(1)}`
}
