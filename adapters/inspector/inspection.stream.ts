import type { AnyMachineSnapshot, AnyStateMachine } from "xstate"
import type { LifecycleInspection } from "../../services/lifecycle/lifecycle.inspection"
import type { Logger } from "../../services/lifecycle/lifecycle.ports"

// The `inspect` option's stream: every lifecycle snapshot is queued (at most `maxQueued`, the oldest dropped and
// counted past that) and sent off the caller's path, a batch per tick, only while the inspector takes them at once. A
// missing, slow or crashed inspector never delays a tool call and never grows memory.

/** One snapshot as the inspector gets it: the actor is `<machine>:<instance>`, announced with its machine once per connection. */
export interface InspectedSnapshot {
  sessionId: string
  machine: AnyStateMachine
  snapshot: { status: AnyMachineSnapshot["status"]; value: unknown; context: unknown; output?: unknown }
}

/** Where the stream's events go: an inspector's connection. */
export interface InspectionSink {
  /** Whether an event sent now goes out at once (connected, nothing backed up). */
  ready(): boolean
  /** A number that changes with every new connection: each actor is announced again on a new one. */
  connection(): number
  /** Announces an actor with its machine's definition. */
  announce(event: InspectedSnapshot): void
  send(event: InspectedSnapshot): void
  close(): void
}

export interface InspectionStreamOptions {
  sink: Promise<InspectionSink>
  maxQueued: number
  log: Logger
  /** Where the events go, for the log's words. */
  url: string
}

const BATCH = 100
const RETRY_MS = 250

export class InspectionStream implements LifecycleInspection {
  private readonly queue: (InspectedSnapshot | undefined)[]
  private head = 0
  private size = 0
  private sink: InspectionSink | undefined
  private timer: NodeJS.Timeout | undefined
  private closed = false
  private readonly announced = new Set<string>()
  private announcedOn = -1
  /** Events dropped because the queue was full, since the start. */
  dropped = 0
  private droppedSaid = 0

  constructor(private readonly options: InspectionStreamOptions) {
    this.queue = new Array(options.maxQueued)
    options.sink.then(
      (sink) => {
        if (this.closed) sink.close()
        else {
          this.sink = sink
          this.schedule(0)
        }
      },
      (error: unknown) => {
        this.closed = true
        options.log.warn(`inspect: cannot start inspecting at ${options.url}: ${error instanceof Error ? error.message : String(error)}; Forge runs without it`)
      },
    )
  }

  /** Queued events waiting for the inspector. */
  get queued(): number {
    return this.size
  }

  snapshot(machine: AnyStateMachine, instanceId: string, snapshot: AnyMachineSnapshot): void {
    if (this.closed) return
    try {
      const { status, value, context, output } = snapshot
      this.push({ sessionId: `${machine.id}:${instanceId}`, machine, snapshot: { status, value, context, output } })
      this.schedule(0)
    } catch {
      // Inspection never breaks the step it watches.
    }
  }

  close(): void {
    this.closed = true
    clearTimeout(this.timer)
    this.sink?.close()
  }

  private push(event: InspectedSnapshot): void {
    const capacity = this.queue.length
    if (this.size === capacity) {
      this.head = (this.head + 1) % capacity
      this.size--
      this.dropped++
    }
    this.queue[(this.head + this.size) % capacity] = event
    this.size++
  }

  private shift(): InspectedSnapshot | undefined {
    if (this.size === 0) return undefined
    const event = this.queue[this.head]
    this.queue[this.head] = undefined
    this.head = (this.head + 1) % this.queue.length
    this.size--
    return event
  }

  private schedule(ms: number): void {
    if (this.timer !== undefined || this.closed || this.sink === undefined || this.size === 0) return
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.drain()
    }, ms)
    // An inspector never keeps the process alive.
    this.timer.unref?.()
  }

  private drain(): void {
    const sink = this.sink
    if (sink === undefined || this.closed) return
    try {
      for (let sent = 0; sent < BATCH && this.size > 0 && sink.ready(); sent++) {
        const connection = sink.connection()
        if (connection !== this.announcedOn) {
          this.announced.clear()
          this.announcedOn = connection
        }
        const event = this.shift() as InspectedSnapshot
        if (!this.announced.has(event.sessionId)) {
          sink.announce(event)
          this.announced.add(event.sessionId)
        }
        sink.send(event)
      }
    } catch (error) {
      this.options.log.warn(`inspect: sending to ${this.options.url} failed: ${error instanceof Error ? error.message : String(error)}`)
    }
    this.sayDrops()
    this.schedule(sink.ready() ? 0 : RETRY_MS)
  }

  /** Drops are said in the log: the first, then every further thousand. */
  private sayDrops(): void {
    if (this.dropped === this.droppedSaid || (this.droppedSaid > 0 && this.dropped - this.droppedSaid < 1_000)) return
    this.droppedSaid = this.dropped
    this.options.log.warn(
      `inspect: ${this.dropped} lifecycle event(s) dropped so far: the inspector at ${this.options.url} is slow or unreachable, and at most ${this.options.maxQueued} wait for it (option inspect.maxQueued)`,
    )
  }
}
