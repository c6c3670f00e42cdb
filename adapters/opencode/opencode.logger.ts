import type { PluginInput } from "@opencode-ai/plugin"
import type { Logger } from "../../services/lifecycle/lifecycle.ports"

export const LOG_SERVICE = "forgecharts"

/** Writes to opencode's own log (visible with --print-logs and in the log folder); never throws. */
export function createOpencodeLogger(client: PluginInput["client"]): Logger {
  const send = (level: "info" | "warn" | "error", message: string, extra?: Record<string, unknown>) => {
    void client.app.log({ body: { service: LOG_SERVICE, level, message, extra } }).catch(() => undefined)
  }
  return {
    info: (message, extra) => send("info", message, extra),
    warn: (message, extra) => send("warn", message, extra),
    error: (message, extra) => send("error", message, extra),
  }
}
