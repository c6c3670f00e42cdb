import { describe, expect, it } from "vitest"
import { defaultForgeOptions, parseForgeOptions } from "../../../services/config/forge.options"

describe("plugin options", () => {
  it("no options: every default, no warning", () => {
    expect(parseForgeOptions(undefined)).toEqual({ options: defaultForgeOptions, warnings: [] })
    expect(defaultForgeOptions).toEqual({
      jobs: { mode: "auto", keepBuiltinShell: false, survive: "never" },
      watchdog: { mode: "kill", stallMs: 600_000 },
      files: { journalMaxMB: 256 },
      loop: { sandbox: "bwrap", network: false, stallMs: 900_000 },
      inspect: { url: null, maxQueued: 1_000 },
    })
  })

  it("inspection is off by default; a ws:// URL turns it on, as a string or an object; anything else keeps it off", () => {
    expect(parseForgeOptions({ inspect: "ws://127.0.0.1:8080" }).options.inspect).toEqual({ url: "ws://127.0.0.1:8080", maxQueued: 1_000 })
    expect(parseForgeOptions({ inspect: { url: "wss://inspect.example/x", maxQueued: 50 } }).options.inspect).toEqual({
      url: "wss://inspect.example/x",
      maxQueued: 50,
    })
    const { options, warnings } = parseForgeOptions({ inspect: { url: "http://127.0.0.1:8080", maxQueued: 5 } })
    expect(options.inspect).toEqual({ url: null, maxQueued: 1_000 })
    expect(warnings).toEqual([
      expect.stringMatching(/^option inspect\.url: "http:\/\/127\.0\.0\.1:8080" is invalid \(expected a ws:\/\/ or wss:\/\/ URL\); using the default null$/),
      expect.stringMatching(/^option inspect\.maxQueued: 5 is invalid/),
    ])
    expect(parseForgeOptions({ inspect: { port: 1 } }).warnings).toEqual(["option inspect.port is not a Forge option; ignored"])
  })

  it("the loop sandbox is on and offline by default; an invalid value keeps it on, never off", () => {
    expect(parseForgeOptions({ loop: { sandbox: "off", network: true } }).options.loop).toEqual({ sandbox: "off", network: true, stallMs: 900_000 })
    expect(parseForgeOptions({ loop: { stallMs: 1_000 } }).options.loop.stallMs, "a stall timeout under a minute is raised to it").toBe(60_000)
    const { options, warnings } = parseForgeOptions({ loop: { sandbox: false } })
    expect(options.loop.sandbox).toBe("bwrap")
    expect(warnings[0]).toMatch(/^option loop\.sandbox: false is invalid .*using the default "bwrap"$/)
  })

  it("the journal's bound is a whole number of MB from 1; anything else falls back, named", () => {
    expect(parseForgeOptions({ files: { journalMaxMB: 16 } }).options.files.journalMaxMB).toBe(16)
    const { options, warnings } = parseForgeOptions({ files: { journalMaxMB: 0.5 } })
    expect(options.files.journalMaxMB).toBe(256)
    expect(warnings[0]).toMatch(/^option files\.journalMaxMB: 0\.5 is invalid .*using the default 256$/)
  })

  it("valid values are taken", () => {
    const { options, warnings } = parseForgeOptions({ jobs: { mode: "native", survive: "deny" }, watchdog: { mode: "dry-run", stallMs: 90_000 } })
    expect(warnings).toEqual([])
    expect(options.jobs).toEqual({ mode: "native", keepBuiltinShell: false, survive: "deny" })
    expect(options.watchdog).toEqual({ mode: "dry-run", stallMs: 90_000 })
  })

  it("an invalid value falls back to its default alone, and says so naming the option", () => {
    const { options, warnings } = parseForgeOptions({ jobs: { mode: "turbo", keepBuiltinShell: true }, watchdog: { stallMs: "soon" } })
    expect(options.jobs.mode).toBe("auto")
    expect(options.jobs.keepBuiltinShell).toBe(true)
    expect(options.watchdog.stallMs).toBe(600_000)
    expect(warnings).toHaveLength(2)
    expect(warnings[0]).toMatch(/^option jobs\.mode: "turbo" is invalid .*using the default "auto"$/)
    expect(warnings[1]).toMatch(/^option watchdog\.stallMs: "soon" is invalid/)
  })

  it("a stall budget under the floor is raised to 60 s", () => {
    expect(parseForgeOptions({ watchdog: { stallMs: 5_000 } }).options.watchdog.stallMs).toBe(60_000)
  })

  it("unknown keys and a non-object are reported, not fatal", () => {
    expect(parseForgeOptions({ colour: "red", jobs: { speed: 1 } }).warnings).toEqual([
      "option colour is not a Forge option; ignored",
      "option jobs.speed is not a Forge option; ignored",
    ])
    expect(parseForgeOptions("fast").warnings[0]).toMatch(/must be an object/)
  })
})
