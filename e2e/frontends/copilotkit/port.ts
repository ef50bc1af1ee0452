/** Where the CopilotKit page (frontends/copilotkit/) is served during the e2e run. */
export const COPILOTKIT_PAGE_PORT = Number(process.env.E2E_COPILOTKIT_PORT ?? 4351)

/** Where `@copilotkit/runtime` (frontends/copilotkit/runtime.ts) listens, in front of the demo's endpoint. */
export const COPILOTKIT_RUNTIME_PORT = Number(process.env.E2E_COPILOTKIT_RUNTIME_PORT ?? 4353)
