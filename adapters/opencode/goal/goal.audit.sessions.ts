import type { PluginInput } from "@opencode-ai/plugin"
import type { GoalAuditSessions } from "../../../services/goal/goal.ports"
import { createLoopSessions } from "../loop/loop.sessions"
import { lastAssistantTextOf } from "../session.messages"

// A goal's auditor in opencode: a fresh session of the forge agent, briefed as a loop's pass is (Forge's notice shows,
// the brief goes to the model only). Its turn ends at its idle, which the goal fragment hands here; its last
// assistant words are the audit's summary. A turn that errors, runs past its time or is cancelled fails the audit.

interface Waiter {
  resolve(summary: string): void
  reject(error: Error): void
}

export class OpencodeAuditSessions implements GoalAuditSessions {
  private readonly sessions: ReturnType<typeof createLoopSessions>
  private readonly waiting = new Map<string, Waiter>()

  constructor(private readonly client: PluginInput["client"]) {
    this.sessions = createLoopSessions(client)
  }

  open(title: string): Promise<string> {
    return this.sessions.open(title)
  }

  send(sessionId: string, text: string): Promise<void> {
    return this.sessions.send(sessionId, text)
  }

  ended(sessionId: string, { timeoutMs, signal }: { timeoutMs: number; signal?: AbortSignal }): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer)
        signal?.removeEventListener("abort", cancelled)
        this.waiting.delete(sessionId)
      }
      const cancelled = () => {
        done()
        reject(new Error("the goal_complete call that waited for the audit was cancelled"))
      }
      const timer = setTimeout(() => {
        done()
        reject(new Error(`its turn ran past ${Math.round(timeoutMs / 1000)} s`))
      }, timeoutMs)
      timer.unref?.()
      if (signal?.aborted) return cancelled()
      signal?.addEventListener("abort", cancelled, { once: true })
      this.waiting.set(sessionId, {
        resolve: (summary) => {
          done()
          resolve(summary)
        },
        reject: (error) => {
          done()
          reject(error)
        },
      })
    })
  }

  async stop(sessionId: string): Promise<void> {
    this.waiting.get(sessionId)?.reject(new Error("its turn was stopped"))
    await this.sessions.stop(sessionId)
  }

  /** A session went idle: an auditor's turn ended, and its last words are read. */
  async idle(sessionId: string): Promise<void> {
    const waiter = this.waiting.get(sessionId)
    if (waiter === undefined) return
    try {
      waiter.resolve(await lastAssistantTextOf(this.client, sessionId))
    } catch (error) {
      waiter.reject(error instanceof Error ? error : new Error(String(error)))
    }
  }

  /** A session's turn failed: an auditor's audit fails with it. */
  error(sessionId: string, text: string): void {
    this.waiting.get(sessionId)?.reject(new Error(`its turn failed: ${text}`))
  }

  /** Whether an audit waits on this session's turn. */
  waitsOn(sessionId: string): boolean {
    return this.waiting.has(sessionId)
  }
}
