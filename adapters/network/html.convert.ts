// HTML to markdown off the host's thread: each page is converted in a worker thread of its own, under a nesting
// limit (checked in linear time before parsing), a time limit and a memory limit. The worker is terminated when
// the time runs out, so a page whose conversion is slow costs the page, never opencode's event loop.
import { Worker } from "node:worker_threads"
import type { ConvertReply, ConvertRequest } from "./html.convert.protocol"
import type { PageMarkdown } from "./html.markdown"
import { HTML_WORKER_SOURCE } from "./html.worker.generated"

export interface ConvertLimits {
  /** Nesting of elements converted at most. */
  maxDepth: number
  /** Time from the worker's start to its answer, in ms. */
  timeoutMs: number
  /** The worker's heap, in MB. */
  maxMemoryMb: number
}

export const CONVERT_LIMITS: ConvertLimits = { maxDepth: 1000, timeoutMs: 10_000, maxMemoryMb: 512 }

/** Which limit a conversion hit, or that it failed otherwise; `message` says it in words, for the model. */
export class ConversionRefused extends Error {
  constructor(
    readonly limit: "depth" | "time" | "memory" | "failed",
    message: string,
  ) {
    super(message)
    this.name = "ConversionRefused"
  }
}

// A stack larger than the default, so that what the nesting scan lets through never overflows it.
const STACK_MB = 8

export async function convertHtml(html: string, baseUrl: string, limits: ConvertLimits = CONVERT_LIMITS): Promise<PageMarkdown> {
  const request: ConvertRequest = { html, baseUrl, maxDepth: limits.maxDepth }
  return new Promise<PageMarkdown>((resolve, reject) => {
    let worker: Worker
    try {
      worker = new Worker(HTML_WORKER_SOURCE, {
        eval: true,
        workerData: request,
        resourceLimits: { stackSizeMb: STACK_MB, maxOldGenerationSizeMb: limits.maxMemoryMb },
      })
    } catch (error) {
      reject(new ConversionRefused("failed", `the HTML converter could not start (${messageOf(error)})`))
      return
    }
    let settled = false
    const settle = (outcome: () => void): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      void worker.terminate()
      outcome()
    }
    const timer = setTimeout(
      () => settle(() => reject(new ConversionRefused("time", `converting it to markdown took longer than the ${seconds(limits.timeoutMs)} s limit`))),
      limits.timeoutMs,
    )
    worker.once("message", (reply: ConvertReply) =>
      settle(() => {
        if (reply.kind === "converted") resolve(reply.title === undefined ? { markdown: reply.markdown } : { markdown: reply.markdown, title: reply.title })
        else if (reply.kind === "too-deep")
          reject(new ConversionRefused("depth", `it nests its HTML elements more than ${limits.maxDepth.toLocaleString("en-US")} deep`))
        else reject(new ConversionRefused("failed", `the HTML converter failed (${reply.message})`))
      }),
    )
    worker.once("error", (error: Error & { code?: string }) =>
      settle(() =>
        reject(
          error.code === "ERR_WORKER_OUT_OF_MEMORY"
            ? new ConversionRefused("memory", `converting it to markdown needed more than the ${limits.maxMemoryMb} MB of memory allowed`)
            : new ConversionRefused("failed", `the HTML converter failed (${messageOf(error)})`),
        ),
      ),
    )
    worker.once("exit", (code) => settle(() => reject(new ConversionRefused("failed", `the HTML converter stopped without an answer (exit code ${code})`))))
  })
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** 10000 → "10", 1 → "0.001". */
const seconds = (ms: number): string => String(ms / 1000)
