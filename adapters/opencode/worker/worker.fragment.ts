import { isForgeFamily } from "../../../machines/exec.partition"
import type { ThoughtModelFacts } from "../../../services/workers/thought.level"
import type { LiveConfig } from "../config.hook"
import type { ForgeFragment, FragmentContext } from "../forge.fragment"
import type { Lazy } from "../lazy"
import type { HostWorkersHandle } from "./worker.handle"

interface SessionEvent {
  type: string
  properties?: { info?: { id?: string } }
}

/**
 * The forge.json workers' part of the plugin: each config build (a real materialization) reads the pool files and adds
 * the forge-* subagents to the live config; a worker session's first request carries its pinned thoughtLevel, frozen
 * for the session. Nothing here ever stops opencode: a file Forge cannot read is a finding in the log.
 */
export function workerFragment(ctx: FragmentContext, workers: Lazy<HostWorkersHandle>): ForgeFragment {
  return {
    id: "workers",
    toolIds: [],
    hooks: {
      // Runs before Forge's own config changes, so the partition's rules reach the workers as every other agent.
      async config(cfg) {
        if (ctx.isDisabled() || (cfg as LiveConfig).agent?.forge?.disable === true) return
        try {
          const live = cfg as LiveConfig
          live.agent ??= {}
          for (const [agentId, agent] of await (await workers.get()).materialize()) {
            // The user's own agent entry of that name wins, field by field.
            live.agent[agentId] = { ...agent, ...live.agent[agentId] }
          }
        } catch (error) {
          ctx.log.error(`forge.json workers could not be materialized: ${error instanceof Error ? error.message : String(error)}`)
        }
      },

      // A pinned worker's depth, translated for its provider, at its session's first request and frozen there.
      async "chat.params"(input, output) {
        if (input.agent === "forge" || !isForgeFamily(input.agent)) return
        try {
          const frozen = await (await workers.get()).thoughtFor(input.sessionID, input.agent, input.model as unknown as ThoughtModelFacts)
          if (frozen.first && frozen.params.finding !== undefined) ctx.log.warn(`${input.agent}: ${frozen.params.finding}`)
          Object.assign(output.options, frozen.params.options)
        } catch (error) {
          ctx.log.error(`${input.agent}: its thoughtLevel could not be applied: ${error instanceof Error ? error.message : String(error)}`)
        }
      },

      async event({ event }) {
        const e = event as SessionEvent
        if (e.type === "session.deleted" && e.properties?.info?.id !== undefined) workers.current()?.forget(e.properties.info.id)
      },
    },
  }
}
