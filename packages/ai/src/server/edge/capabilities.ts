import type { ChatCapabilities } from '../../protocol/capabilities.ts'
import type { ChatConfig } from '../options.ts'

// AG-UI capability discovery (`AgentCapabilities` of @ag-ui/core 1.0): what this handler does, for
// clients that adapt their UI to it. Served as JSON at `GET <endpoint>?capabilities`; AG-UI defines
// the shape, not a route. Only what holds is declared (absent means unknown, per the spec). The
// server's tool schemas are not listed: they are the app's to publish.

export function capabilitiesOf(config: ChatConfig): ChatCapabilities {
  return {
    identity: { name: config.model.name ?? 'toolgate', type: 'toolgate' },
    transport: { streaming: true, resumable: true },
    tools: { supported: config.tools.names.length > 0 || config.frontendTools.size > 0, parallelCalls: true, clientProvided: config.frontendTools.size > 0 },
    humanInTheLoop: { supported: true, approvals: true, interrupts: true, approveWithEdits: true, feedback: true },
    multimodal: { output: { image: true } },
  }
}
