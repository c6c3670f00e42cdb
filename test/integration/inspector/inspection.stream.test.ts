import { mkdtempSync, rmSync } from "node:fs"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import WebSocket from "ws"
import { type AnyMachineSnapshot, initialTransition } from "xstate"
import { type InspectionSink, InspectionStream } from "../../../adapters/inspector/inspection.stream"
import { InspectorFeed } from "../../../adapters/inspector/inspector.feed"
import { type RunningInspector, startInspectorServer } from "../../../adapters/inspector/inspector.server"
import { statelySink } from "../../../adapters/inspector/stately.sink"
import { type PlanInput, planMachine } from "../../../machines/plan/plan.machine"
import { memoryLogger } from "../plan/plan.helpers"

// The `inspect` option's stream: bounded whatever the inspector does, and, pointed at `forgecharts inspect`'s endpoint,
// the actors it sends show on the page's feed through @statelyai/inspect's WebSocket protocol.

const input: PlanInput = { planPath: ".opencode/plan/p.md", sessionId: "ses_live", tasks: [{ number: 1, ticked: false }], criteria: ["c1"], document: "" }
const [draft] = initialTransition(planMachine, input) as unknown as [AnyMachineSnapshot]

const waitingSink = (over: Partial<InspectionSink> = {}): InspectionSink => ({
  ready: () => false,
  connection: () => 0,
  announce: () => undefined,
  send: () => undefined,
  close: () => undefined,
  ...over,
})

describe("the inspect option's stream", () => {
  it("keeps at most maxQueued for an inspector that takes nothing, drops the oldest, counts and says so, never waits", async () => {
    const log = memoryLogger()
    const stream = new InspectionStream({ sink: Promise.resolve(waitingSink()), maxQueued: 10, log, url: "ws://127.0.0.1:9/inspect" })
    const started = performance.now()
    for (let i = 0; i < 5_000; i++) stream.snapshot(planMachine, `p${i}`, draft)
    expect(performance.now() - started).toBeLessThan(500)
    expect(stream.queued).toBe(10)
    expect(stream.dropped).toBe(4_990)
    await expect
      .poll(() => log.lines.join("\n"))
      .toMatch(
        /inspect: 4990 lifecycle event\(s\) dropped so far: the inspector at ws:\/\/127\.0\.0\.1:9\/inspect is slow or unreachable, and at most 10 wait for it \(option inspect\.maxQueued\)/,
      )
    stream.close()
  })

  it("sends the newest events in order once the inspector takes them, announcing each actor once per connection", async () => {
    const sent: string[] = []
    let ready = false
    let connection = 1
    const sink = waitingSink({
      ready: () => ready,
      connection: () => connection,
      announce: (e) => sent.push(`actor ${e.sessionId} ${e.machine.id}`),
      send: (e) => sent.push(`snapshot ${e.sessionId} ${JSON.stringify(e.snapshot.value)}`),
    })
    const stream = new InspectionStream({ sink: Promise.resolve(sink), maxQueued: 3, log: memoryLogger(), url: "ws://x" })
    for (const id of ["a", "b", "a", "c"]) stream.snapshot(planMachine, id, draft)
    ready = true
    await expect.poll(() => sent.length).toBe(6)
    expect(sent).toEqual([
      "actor plan:b plan",
      'snapshot plan:b {"draft":"editing"}',
      "actor plan:a plan",
      'snapshot plan:a {"draft":"editing"}',
      "actor plan:c plan",
      'snapshot plan:c {"draft":"editing"}',
    ])
    connection = 2
    stream.snapshot(planMachine, "a", draft)
    await expect.poll(() => sent.slice(6)).toEqual(["actor plan:a plan", 'snapshot plan:a {"draft":"editing"}'])
    stream.close()
  })

  it("never throws into the step it watches, whatever the inspector's connection does", async () => {
    const log = memoryLogger()
    const broken = waitingSink({
      ready: () => true,
      send: () => {
        throw new Error("socket gone")
      },
    })
    const stream = new InspectionStream({ sink: Promise.resolve(broken), maxQueued: 10, log, url: "ws://x" })
    expect(() => stream.snapshot(planMachine, "a", draft)).not.toThrow()
    await expect.poll(() => log.lines.join("\n")).toContain("inspect: sending to ws://x failed: socket gone")
    const unloadable = new InspectionStream({ sink: Promise.reject(new Error("no module")), maxQueued: 10, log, url: "ws://y" })
    await expect.poll(() => log.lines.join("\n")).toContain("inspect: cannot start inspecting at ws://y: no module; Forge runs without it")
    expect(() => unloadable.snapshot(planMachine, "a", draft)).not.toThrow()
  })
})

describe("the local inspector's live endpoint", () => {
  let dir = ""
  let feed: InspectorFeed
  let server: RunningInspector
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "forge-inspect-live-"))
    feed = new InspectorFeed({ workspace: dir })
    await feed.start()
    server = await startInspectorServer({ workspace: dir, feed, pages: { page: () => "", diagram: async () => undefined } })
  })
  afterAll(async () => {
    await server.close()
    await feed.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it("shows an actor the plugin sends through @statelyai/inspect, which no database holds", async () => {
    const stream = new InspectionStream({ sink: Promise.resolve(statelySink(server.inspectUrl)), maxQueued: 100, log: memoryLogger(), url: server.inspectUrl })
    stream.snapshot(planMachine, "live-1", draft)
    await expect
      .poll(() => feed.current().instances.find((i) => i.key === "plan/live-1"))
      .toMatchObject({ machine: "plan", instance: "live-1", state: "draft.editing", session: "ses_live", live: true, final: false })
    expect(feed.current().liveSnapshots).toBeGreaterThanOrEqual(1)
    stream.close()
  })

  it("lets go of a page that stopped reading its event stream instead of buffering for it", async () => {
    const stalled = await startInspectorServer({
      workspace: dir,
      feed,
      stalledStreamBytes: 64 * 1024,
      pages: { page: () => "", diagram: async () => undefined },
    })
    try {
      const socket = connect(stalled.port, "127.0.0.1")
      await new Promise((resolve) => socket.once("connect", resolve))
      socket.write(`GET /events HTTP/1.1\r\nHost: 127.0.0.1:${stalled.port}\r\n\r\n`)
      // The stream is open once its first event came; from then on the page never reads: what the server writes piles up
      // in the kernel's buffers, then in the stream's.
      await new Promise((resolve) => socket.once("data", resolve))
      socket.pause()
      // Long instance names make every event large: far more than the kernel's socket buffers hold.
      const long = "x".repeat(16 * 1024)
      for (let i = 0; i < 1_000; i++)
        feed.live({ sessionId: `plan:${long}-${i}`, machine: "plan", status: "active", value: "draft", context: {}, at: Date.now() })
      // The server let go: the connection ends (a server that kept buffering would keep it open with ~40 MB queued).
      const closed = new Promise((resolve) => socket.once("close", () => resolve("closed")))
      socket.on("error", () => undefined)
      socket.resume()
      expect(await Promise.race([closed, new Promise((resolve) => setTimeout(() => resolve("still open after 10 s"), 10_000))])).toBe("closed")
    } finally {
      await stalled.close()
    }
  })

  it("refuses an upgrade from a page of another origin or through a foreign Host", async () => {
    const refused = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(server.inspectUrl, { headers })
        ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0))
        ws.on("open", () => reject(new Error("the upgrade was accepted")))
        ws.on("error", () => undefined)
      })
    expect(await refused({ origin: "http://attacker.example" })).toBe(403)
    expect(await refused({ host: `attacker.example:${server.port}` })).toBe(403)
    const local = new WebSocket(server.inspectUrl, { headers: { origin: `http://127.0.0.1:${server.port}` } })
    await new Promise((resolve, reject) => {
      local.on("open", resolve)
      local.on("error", reject)
    })
    local.close()
  })
})
