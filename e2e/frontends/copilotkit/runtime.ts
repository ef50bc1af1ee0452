import { createServer } from 'node:http'
import { createRequire } from 'node:module'
import { CopilotRuntime, InMemoryAgentRunner } from '@copilotkit/runtime/v2'
import { createCopilotNodeListener } from '@copilotkit/runtime/v2/node'
import { COPILOTKIT_RUNTIME_PORT } from './port.ts'

// `@copilotkit/runtime` 1.75 in front of the demo's chat endpoint, as an app runs it
// (docs/existing-frontends.md): its agent is the stock `HttpAgent` of the AG-UI client the runtime
// depends on (`@ag-ui/client` 0.0.59; an app installs that version beside the runtime), pointed at
// the endpoint. The page reaches it at /api/copilotkit (`?runtime=1`).

const demo = `http://127.0.0.1:${process.env.E2E_PORT ?? 4310}`
// The AG-UI client the runtime itself resolves: e2e's own `@ag-ui/client` is 1.0.
const { HttpAgent } = createRequire(createRequire(import.meta.url).resolve('@copilotkit/runtime/v2'))('@ag-ui/client') as typeof import('@ag-ui/client')

const runtime = new CopilotRuntime({
  agents: { default: new HttpAgent({ url: `${demo}/api/chat` }) as never },
  runner: new InMemoryAgentRunner(),
})

createServer(createCopilotNodeListener({ runtime, basePath: '/api/copilotkit', activateChannels: false })).listen(COPILOTKIT_RUNTIME_PORT, '127.0.0.1')
